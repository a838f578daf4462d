#!/usr/bin/env python3
"""samples/blind-dj's shop: Django (Debian's python3-django) on psycopg2,
12 worker threads for DURATION_S seconds, each with its own persistent
connections (CONN_MAX_AGE = None), one application_name. Writes one JSON
line per transaction attempt (the client-side truth) to TRUTH.

  run.py PGHOST PGPORT STUB_PORT DURATION_S TRUTH.jsonl [WORKERS]
"""
import datetime
import http.server
import json
import os
import random
import sys
import threading
import time
import urllib.request

import django
import psycopg2.extensions
from django.conf import settings

HOST, PORT, STUB_PORT, DURATION_S, TRUTH = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), \
    float(sys.argv[4]), sys.argv[5]
WORKERS = int(sys.argv[6]) if len(sys.argv) > 6 else 12
APP_NAME = "shop-django"
DB = {"ENGINE": "django.db.backends.postgresql", "NAME": "shop", "USER": "postgres",
      "HOST": HOST, "PORT": str(PORT), "CONN_MAX_AGE": None,
      "OPTIONS": {"application_name": APP_NAME}}
RR = dict(DB, OPTIONS={"application_name": APP_NAME,
                       "isolation_level": psycopg2.extensions.ISOLATION_LEVEL_REPEATABLE_READ})
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
settings.configure(DATABASES={"default": DB, "rr": RR}, INSTALLED_APPS=["shop"], USE_TZ=True,
                   DEFAULT_AUTO_FIELD="django.db.models.BigAutoField")
django.setup()

from django.db import OperationalError, connections, transaction  # noqa: E402
from django.db.models import F  # noqa: E402
from django.db.models.signals import post_save  # noqa: E402
from django.dispatch import receiver  # noqa: E402

from shop.models import Account, Counter, Order, Page, Product, Warehouse  # noqa: E402


def now():
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="microseconds")


class Rec(threading.local):
    """The current attempt of this thread: its statements (call, return,
    SQLSTATE, the rows each is meant to lock)."""
    attempt = None
    want = None


REC = Rec()
OUT_LOCK = threading.Lock()
OUT = open(TRUTH, "w")


def wrapper(execute, sql, params, many, context):
    st = {"sql": sql[:200], "call": now(), "rows": REC.want or []}
    REC.want = None
    try:
        return execute(sql, params, many, context)
    except Exception as e:
        cause = e.__cause__ or e
        st["error"] = getattr(cause, "pgcode", None) or type(cause).__name__
        raise
    finally:
        st["ret"] = now()
        if REC.attempt is not None:
            REC.attempt["stmts"].append(st)


def want(*rows):
    REC.want = [list(r) for r in rows]


def pid_of(alias):
    c = connections[alias]
    c.ensure_connection()
    return c.connection.info.backend_pid


@receiver(post_save, sender=Order)
def bump_order_counter(sender, instance, created, **kw):
    # The orders counter row, in the order's transaction.
    want(("counters", 1))
    Counter.objects.filter(id=1).update(n=F("n") + 1)


def place_order(pid, qty):
    with transaction.atomic():
        want(("products", pid))
        p = Product.objects.select_for_update().get(id=pid)
        time.sleep(random.uniform(0.005, 0.020))
        Product.objects.filter(id=pid).update(stock=F("stock") - qty)
        want(("order_totals", 1))           # the AFTER INSERT trigger's UPDATE
        Order.objects.create(product_id=pid, qty=qty, amount=qty * p.price)
        time.sleep(random.uniform(0.005, 0.015))


def hit_page(page):
    with transaction.atomic():
        want(("pages", page))
        Page.objects.filter(id=page).update(hits=F("hits") + 1)
        time.sleep(random.uniform(0.010, 0.030))


def reserve_stock(wid):
    with transaction.atomic():
        want(("warehouses", wid))
        Warehouse.objects.select_for_update().get(id=wid)
        # The slow pricing service, called with the row held.
        urllib.request.urlopen("http://127.0.0.1:%d/price?w=%d" % (STUB_PORT, wid), timeout=5).read()
        Warehouse.objects.filter(id=wid).update(reserved=F("reserved") + 1)


def transfer(a, b):
    # a, b in request order: deadlocks
    with transaction.atomic():
        want(("accounts", a))
        Account.objects.select_for_update().get(id=a)
        time.sleep(random.uniform(0.030, 0.120))
        want(("accounts", b))
        Account.objects.select_for_update().get(id=b)
        Account.objects.filter(id=a).update(balance=F("balance") - 10)
        Account.objects.filter(id=b).update(balance=F("balance") + 10)


def reprice(pid):
    with transaction.atomic(using="rr"):
        p = Product.objects.using("rr").get(id=pid)
        time.sleep(random.uniform(0.030, 0.100))
        want(("products", pid))
        Product.objects.using("rr").filter(id=pid).update(price=p.price + 1 if p.price < 200 else 100)


# A request: its arguments drawn once; a retry runs the same request again.
ARGS = {
    "place_order": lambda: (1 if random.random() < 0.5 else random.randint(2, 4), random.randint(1, 3)),
    "hit_page": lambda: (1 if random.random() < 0.6 else random.randint(2, 4),),
    "reserve_stock": lambda: (1 if random.random() < 0.5 else random.randint(2, 3),),
    "transfer": lambda: tuple(random.sample(range(1, 5), 2)),
    "reprice": lambda: (random.randint(1, 2),),
}
PATHS = [(place_order, 30, "default", 1), (hit_page, 25, "default", 1),
         (reserve_stock, 12, "default", 1), (transfer, 10, "default", 2), (reprice, 23, "rr", 3)]
RETRY_ON = {"transfer": "40P01", "reprice": "40001"}


def run_path(fn, alias, tries):
    args = ARGS[fn.__name__]()
    for attempt_no in range(1, tries + 1):
        a = {"path": fn.__name__, "alias": alias, "pid": pid_of(alias), "try": attempt_no,
             "args": list(args), "thread": threading.current_thread().name, "start": now(), "stmts": []}
        REC.attempt = a
        try:
            fn(*args)
            a["outcome"] = "commit"
        except OperationalError as e:
            code = getattr(e.__cause__, "pgcode", None)
            a["outcome"] = "error"
            a["sqlstate"] = code
            a["retried"] = attempt_no < tries and code == RETRY_ON.get(fn.__name__)
        finally:
            a["end"] = now()
            REC.attempt = None
            REC.want = None
            with OUT_LOCK:
                OUT.write(json.dumps(a) + "\n")
        if a["outcome"] == "commit" or not a.get("retried"):
            return
        time.sleep(random.uniform(0.005, 0.020))


def worker(stop_at, seed):
    random.seed(seed)
    with connections["default"].execute_wrapper(wrapper), connections["rr"].execute_wrapper(wrapper):
        while time.time() < stop_at:
            r = random.uniform(0, 100)
            for fn, share, alias, tries in PATHS:
                if r < share:
                    break
                r -= share
            run_path(fn, alias, tries)
            time.sleep(random.uniform(0.002, 0.010))
    connections.close_all()


class Stub(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        time.sleep(random.uniform(0.2, 0.5))
        body = b'{"price": 100}'
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *a):
        pass


def clock_offset():
    """Server minus client clock (µs), from the midpoint of 5 round trips,
    the narrowest kept."""
    best = None
    with connections["default"].cursor() as c:
        for _ in range(5):
            t0 = time.time()
            c.execute("SELECT extract(epoch FROM clock_timestamp())::float8")
            s = c.fetchone()[0]
            t1 = time.time()
            if best is None or t1 - t0 < best[0]:
                best = (t1 - t0, (s - (t0 + t1) / 2) * 1e6)
    connections["default"].close()
    return {"offset_us": round(best[1]), "rtt_us": round(best[0] * 1e6)}


def main():
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", STUB_PORT), Stub)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    off = clock_offset()
    with OUT_LOCK:
        OUT.write(json.dumps({"clock": off, "django": django.get_version(),
                              "psycopg2": psycopg2.__version__, "workers": WORKERS,
                              "duration_s": DURATION_S, "application_name": APP_NAME}) + "\n")
    stop_at = time.time() + DURATION_S
    ts = [threading.Thread(target=worker, args=(stop_at, 1000 + i), name="w%d" % i) for i in range(WORKERS)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    srv.shutdown()
    OUT.close()


if __name__ == "__main__":
    main()
