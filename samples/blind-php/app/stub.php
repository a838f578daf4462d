<?php
// The slow "pricing" service: `php -S 127.0.0.1:PORT stub.php` (with
// PHP_CLI_SERVER_WORKERS so that calls do not queue here). It sleeps the
// ?ms= the caller asks for (the caller records what it asked and how long
// the call took) and answers a price.
$ms = isset($_GET['ms']) ? (int)$_GET['ms'] : 300;
usleep(max(0, min($ms, 5000)) * 1000);
header('Content-Type: application/json');
echo json_encode(['price' => 42.5, 'slept_ms' => $ms]);
