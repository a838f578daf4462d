/*
 * test_otlp.c — the OTLP/JSON trace parser: JSON Lines with a bad line in
 * the middle, a pretty-printed document over many lines, old and new
 * semantic-convention names in both orders, ids in hex, base64 and as
 * numbers, nanoseconds as strings and numbers, kinds and status codes as
 * integers and enum names, nested arrays and kvlists in the attributes
 * text, the document size bound, a cut first line, invalid UTF-8, and the
 * first-line sniff.
 *
 * Inputs are hand-made from the spec (opentelemetry-proto
 * docs/specification.md "JSON Protobuf Encoding", trace/v1/trace.proto,
 * the semantic conventions for db, code and http attributes), written
 * before a real export was at hand; test_sample_app() reads the real one
 * in samples/app/ (OpenTelemetry JS SDK) when it is there.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ls_test.h"
#include "unit/trace_sink.h"

/* Three JSON Lines: new names, a cut line, old names in the other order. */
static const char jsonl[] =
    "{\"resourceSpans\":[{\"resource\":{\"attributes\":[{\"key\":\"service.name\",\"value\":{"
    "\"stringValue\":\"payments-api\"}}]},\"scopeSpans\":[{\"scope\":{\"name\":\"io.otel.jdbc\"},"
    "\"spans\":[{\"traceId\":\"5B8EFFF798038103D269B633813FC60C\",\"spanId\":\"eee19b7ec3c1b174\","
    "\"parentSpanId\":\"00f067aa0ba902b7\",\"name\":\"UPDATE accounts\",\"kind\":3,"
    "\"startTimeUnixNano\":\"1700000000123456789\",\"endTimeUnixNano\":\"1700000000223456789\","
    "\"attributes\":["
    "{\"key\":\"db.system\",\"value\":{\"stringValue\":\"old-system\"}},"
    "{\"key\":\"db.system.name\",\"value\":{\"stringValue\":\"postgresql\"}},"
    "{\"key\":\"db.query.text\",\"value\":{\"stringValue\":\"UPDATE accounts SET b = $1\"}},"
    "{\"key\":\"db.statement\",\"value\":{\"stringValue\":\"old statement\"}},"
    "{\"key\":\"db.namespace\",\"value\":{\"stringValue\":\"shop\"}},"
    "{\"key\":\"db.operation.name\",\"value\":{\"stringValue\":\"UPDATE\"}},"
    "{\"key\":\"code.function.name\",\"value\":{\"stringValue\":\"Billing.charge\"}},"
    "{\"key\":\"code.file.path\",\"value\":{\"stringValue\":\"billing.py\"}},"
    "{\"key\":\"code.line.number\",\"value\":{\"intValue\":\"42\"}},"
    "{\"key\":\"db.postgresql.backend_pid\",\"value\":{\"intValue\":\"4242\"}},"
    "{\"key\":\"server.address\",\"value\":{\"stringValue\":\"db1\"}},"
    "{\"key\":\"retries\",\"value\":{\"intValue\":3}},"
    "{\"key\":\"ratio\",\"value\":{\"doubleValue\":0.5}},"
    "{\"key\":\"cached\",\"value\":{\"boolValue\":false}},"
    "{\"key\":\"tags\",\"value\":{\"arrayValue\":{\"values\":[{\"stringValue\":\"a\"},"
    "{\"intValue\":\"7\"},{\"arrayValue\":{\"values\":[{\"boolValue\":true}]}}]}}},"
    "{\"key\":\"ctx\",\"value\":{\"kvlistValue\":{\"values\":[{\"key\":\"k\\\"q\",\"value\":{"
    "\"stringValue\":\"v\\n\"}},{\"key\":\"n\",\"value\":{\"kvlistValue\":{\"values\":[]}}}]}}},"
    "{\"key\":\"blob\",\"value\":{\"bytesValue\":\"AAEC\"}}"
    "],\"status\":{\"code\":2},\"futureField\":{\"x\":[1,2]}}]}]}]}\n"
    "{\"resourceSpans\":[{\"resource\":{\"attributes\":[\n"
    "{\"resourceSpans\":[{\"resource\":{\"attributes\":[{\"key\":\"service.name\",\"value\":{"
    "\"stringValue\":\"web\"}}]},\"scopeSpans\":[{\"spans\":[{\"traceId\":"
    "\"5b8efff798038103d269b633813fc60c\",\"spanId\":\"00f067aa0ba902b7\",\"parentSpanId\":\"\","
    "\"name\":\"POST /charge\",\"kind\":\"SPAN_KIND_SERVER\",\"startTimeUnixNano\":"
    "1700000000000000000,\"endTimeUnixNano\":\"1700000000300000000\",\"attributes\":["
    "{\"key\":\"db.statement\",\"value\":{\"stringValue\":\"old only\"}},"
    "{\"key\":\"db.name\",\"value\":{\"stringValue\":\"shop-old\"}},"
    "{\"key\":\"code.function\",\"value\":{\"stringValue\":\"charge\"}},"
    "{\"key\":\"code.namespace\",\"value\":{\"stringValue\":\"app.billing\"}},"
    "{\"key\":\"code.filepath\",\"value\":{\"stringValue\":\"old.py\"}},"
    "{\"key\":\"code.lineno\",\"value\":{\"intValue\":17}},"
    "{\"key\":\"http.route\",\"value\":{\"stringValue\":\"/charge\"}},"
    "{\"key\":\"http.method\",\"value\":{\"stringValue\":\"POST\"}},"
    "{\"key\":\"http.request.method\",\"value\":{\"stringValue\":\"PATCH\"}},"
    "{\"key\":\"url.full\",\"value\":{\"stringValue\":\"http://x/charge\"}},"
    "{\"key\":\"http.url\",\"value\":{\"stringValue\":\"http://old/charge\"}},"
    "{\"key\":\"peer.service\",\"value\":{\"stringValue\":\"ledger\"}},"
    "{\"key\":\"server.address\",\"value\":{\"stringValue\":\"db1\"}},"
    "{\"key\":\"db.postgresql.backend_pid\",\"value\":{\"stringValue\":\"977\"}}"
    "],\"status\":{\"code\":\"STATUS_CODE_OK\"}}]}]}]}\n";

static void test_json_lines(void)
{
    ts_sink c;
    const ls_span *a, *b;

    CHECK_INT(ts_run(&c, &ls_otlp_parser, jsonl), 0);
    CHECK_INT(c.n, 2);
    CHECK_INT(c.nbad, 1);
    CHECK_INT(c.bad_line[0], 2);
    CHECK(c.bad_reason[0] && strstr(c.bad_reason[0], "incomplete"));
    if (c.n < 2) {
        ts_free(&c);
        return;
    }
    a = &c.spans[0].sp;
    CHECK_INT(a->line, 1);
    CHECK_STR(a->format, "otlp");
    CHECK_STR(a->file, "test.json");
    CHECK_STR(a->trace_id, "5b8efff798038103d269b633813fc60c");
    CHECK_STR(a->span_id, "eee19b7ec3c1b174");
    CHECK_STR(a->parent_id, "00f067aa0ba902b7");
    CHECK_STR(a->name, "UPDATE accounts");
    CHECK_INT(a->kind, LS_SPAN_CLIENT);
    CHECK_STR(a->service, "payments-api");
    CHECK_INT(a->start, 1700000000123456LL);
    CHECK_INT(a->end, 1700000000223456LL);
    CHECK_INT(a->error, 1);
    CHECK_STR(a->db_system, "postgresql");
    CHECK_STR(a->db_statement, "UPDATE accounts SET b = $1");
    CHECK_STR(a->db_name, "shop");
    CHECK_STR(a->db_operation, "UPDATE");
    CHECK_STR(a->code_function, "Billing.charge");
    CHECK_STR(a->code_filepath, "billing.py");
    CHECK_INT(a->code_lineno, 42);
    CHECK_INT(a->db_pid, 4242);
    CHECK_STR(a->peer_service, "db1");
    CHECK(a->code_namespace == NULL && a->http_route == NULL && a->http_method == NULL);
    CHECK(a->attributes && strstr(a->attributes, "\"retries\":3,\"ratio\":0.5,\"cached\":false"));
    CHECK(a->attributes && strstr(a->attributes, "\"tags\":[\"a\",7,[true]]"));
    CHECK(a->attributes && strstr(a->attributes, "\"ctx\":{\"k\\\"q\":\"v\\n\",\"n\":{}}"));
    CHECK(a->attributes && strstr(a->attributes, "\"blob\":\"AAEC\"}"));
    CHECK(a->attributes && strncmp(a->attributes, "{\"db.system\":\"old-system\",", 26) == 0);
    CHECK(a->attributes && strstr(a->attributes, "\"code.line.number\":42,"));

    b = &c.spans[1].sp;
    CHECK_INT(b->line, 3);
    CHECK_STR(b->parent_id, "");
    CHECK_STR(b->service, "web");
    CHECK_INT(b->kind, LS_SPAN_SERVER);
    CHECK_INT(b->start, 1700000000000000LL);
    CHECK_INT(b->end, 1700000000300000LL);
    CHECK_INT(b->error, 0);
    CHECK(b->db_system == NULL);
    CHECK_STR(b->db_statement, "old only");
    CHECK_STR(b->db_name, "shop-old");
    CHECK_STR(b->code_function, "charge");
    CHECK_STR(b->code_namespace, "app.billing");
    CHECK_STR(b->code_filepath, "old.py");
    CHECK_INT(b->code_lineno, 17);
    CHECK_STR(b->http_route, "/charge");
    CHECK_STR(b->http_method, "PATCH");
    CHECK_STR(b->http_url, "http://x/charge");
    CHECK_STR(b->peer_service, "ledger");
    CHECK_INT(b->db_pid, 977);
    CHECK(ts_has_note(&c, "2 spans read from 2 JSON values (one per line)"));
    ts_free(&c);
}

/* One pretty-printed request body: base64 ids (a stock protobuf JSON
 * printer), numbers for nanoseconds, enum names, the pre-1.0 key. */
static const char pretty[] =
    "{\n"
    "  \"resourceSpans\": [\n"
    "    {\n"
    "      \"resource\": {\n"
    "        \"attributes\": [\n"
    "          { \"key\": \"service.name\", \"value\": { \"stringValue\": \"worker\" } }\n"
    "        ]\n"
    "      },\n"
    "      \"instrumentationLibrarySpans\": [\n"
    "        {\n"
    "          \"instrumentationLibrary\": { \"name\": \"old\" },\n"
    "          \"spans\": [\n"
    "            {\n"
    "              \"traceId\": \"W47/95gDgQPSabYzgT/GDA==\",\n"
    "              \"spanId\": \"7uGbfsPBsXQ=\",\n"
    "              \"parentSpanId\": \"APBnqgupArc=\",\n"
    "              \"name\": \"render \\\"invoice\\\" {pdf}\",\n"
    "              \"kind\": \"SPAN_KIND_INTERNAL\",\n"
    "              \"startTimeUnixNano\": 1700000000123456000,\n"
    "              \"endTimeUnixNano\": 1700000001123456000,\n"
    "              \"status\": { \"code\": \"STATUS_CODE_ERROR\", \"message\": \"}]\" }\n"
    "            },\n"
    "            {\n"
    "              \"trace_id\": \"5b8efff798038103d269b633813fc60c\",\n"
    "              \"span_id\": \"-_-_-_-_-_8\",\n"
    "              \"name\": \"snake\",\n"
    "              \"kind\": 5\n"
    "            },\n"
    "            {\n"
    "              \"traceId\": \"5b8efff798038103d269b633813fc60c\",\n"
    "              \"spanId\": \"not an id\",\n"
    "              \"name\": \"broken\"\n"
    "            }\n"
    "          ]\n"
    "        }\n"
    "      ]\n"
    "    }\n"
    "  ]\n"
    "}\n";

static void test_pretty_document(void)
{
    ts_sink c;
    const ls_span *a, *b;

    CHECK_INT(ts_run(&c, &ls_otlp_parser, pretty), 0);
    CHECK_INT(c.n, 2);
    CHECK_INT(c.nbad, 1);
    CHECK_INT(c.bad_line[0], 29); /* where the span begins */
    CHECK(c.bad_text[0] && strstr(c.bad_text[0], "broken"));
    if (c.n < 2) {
        ts_free(&c);
        return;
    }
    a = &c.spans[0].sp;
    CHECK_INT(a->line, 0);
    CHECK_STR(a->trace_id, "5b8efff798038103d269b633813fc60c");
    CHECK_STR(a->span_id, "eee19b7ec3c1b174");
    CHECK_STR(a->parent_id, "00f067aa0ba902b7");
    CHECK_STR(a->name, "render \"invoice\" {pdf}");
    CHECK_STR(a->service, "worker");
    CHECK_INT(a->kind, LS_SPAN_INTERNAL);
    CHECK_INT(a->start, 1700000000123456LL);
    CHECK_INT(a->end, 1700000001123456LL);
    CHECK_INT(a->error, 1);
    CHECK(a->attributes == NULL);
    b = &c.spans[1].sp;
    CHECK_STR(b->span_id, "fbffbffbffbffbff");
    CHECK_INT(b->kind, LS_SPAN_CONSUMER);
    CHECK_INT(b->start, LS_TS_NONE);
    CHECK(ts_has_note(&c, "ids were base64"));
    CHECK(ts_has_note(&c, "2 spans read from 1 JSON values (multi-line documents)"));
    ts_free(&c);
}

/* The bound is per unit, not per document: a document larger than the
 * bound whose elements are small is read whole; an element over it is
 * skipped and said so, and the elements around it are read; a
 * ResourceSpans over it is read span by span when its resource comes
 * first, and is one unit otherwise. */
static void test_bound(void)
{
    ts_sink c;
    char *text = malloc(8192);
    size_t n = 0;
    int i;

    n += (size_t)snprintf(text + n, 8192 - n, "{\n \"resourceSpans\": [\n");
    for (i = 0; i < 20; i++)
        n += (size_t)snprintf(text + n, 8192 - n,
                              "  {\"scopeSpans\": [{\"spans\": [{\"traceId\": \"01\", \"spanId\": "
                              "\"%02x\"}]}]},\n",
                              i + 1);
    n += (size_t)snprintf(text + n, 8192 - n,
                          "  {}\n ]\n}\n{\n \"resourceSpans\": [{\"scopeSpans\": [{\"spans\": "
                          "[{\"traceId\": \"02\", \"spanId\": \"03\"}]}]}]\n}\n");
    CHECK(n > 1000);
    CHECK_INT(ts_run_n(&c, &ls_otlp_parser, text, n, 1000), 0);
    CHECK_INT(c.n, 21);
    CHECK_INT(c.nbad, 0);
    if (c.n == 21) {
        CHECK_STR(c.spans[20].sp.trace_id, "00000000000000000000000000000002");
        CHECK_STR(c.spans[20].sp.span_id, "0000000000000003");
    }
    ts_free(&c);

    /* One line: an element over 100 bytes between two that are not. */
    n = (size_t)snprintf(text, 8192,
                         "{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[{\"traceId\":\"01\","
                         "\"spanId\":\"01\"}]}]},{\"scopeSpans\":[{\"spans\":[{\"traceId\":\"01\","
                         "\"spanId\":\"02\",\"name\":\"%0100d\"}]}]},{\"scopeSpans\":[{\"spans\":"
                         "[{\"traceId\":\"01\",\"spanId\":\"03\"}]}]}]}\n",
                         0);
    CHECK_INT(ts_run_n(&c, &ls_otlp_parser, text, n, 100), 0);
    CHECK_INT(c.n, 2);
    if (c.n == 2) {
        CHECK_STR(c.spans[0].sp.span_id, "0000000000000001");
        CHECK_STR(c.spans[1].sp.span_id, "0000000000000003");
        CHECK_INT(c.spans[1].sp.line, 1);
    }
    CHECK_INT(c.nbad, 1);
    CHECK_INT(c.bad_line[0], 1);
    CHECK(c.nbad == 1 && strncmp(c.bad_text[0], "{\"scopeSpans\":[{\"spans\":[{\"traceId\":\"01\",\"spanId\":\"02\"", 50) == 0);
    CHECK(ts_has_note(&c, "line 1: the JSON value starting here (at byte 78 of the line) is "
                          "larger than 100 bytes"));
    CHECK(ts_has_note(&c, "2 spans read from 1 JSON values (one per line)"));
    ts_free(&c);

    /* One ResourceSpans over the bound, its resource first: read span by
     * span, each of its service. */
    n = (size_t)snprintf(text, 8192,
                         "{\"resourceSpans\":[{\"resource\":{\"attributes\":[{\"key\":"
                         "\"service.name\",\"value\":{\"stringValue\":\"shop\"}}]},\"scopeSpans\":"
                         "[{\"scope\":{\"name\":\"s\"},\"spans\":[");
    for (i = 0; i < 5; i++)
        n += (size_t)snprintf(text + n, 8192 - n, "%s{\"traceId\":\"01\",\"spanId\":\"%02x\"}",
                              i ? "," : "", i + 1);
    n += (size_t)snprintf(text + n, 8192 - n, "]}]}]}\n");
    CHECK(n > 200);
    CHECK_INT(ts_run_n(&c, &ls_otlp_parser, text, n, 200), 0);
    CHECK_INT(c.n, 5);
    CHECK_INT(c.nbad, 0);
    if (c.n == 5) {
        CHECK_STR(c.spans[4].sp.span_id, "0000000000000005");
        CHECK_STR(c.spans[4].sp.service, "shop");
        CHECK_INT(c.spans[4].sp.line, 1);
    }
    ts_free(&c);

    /* Its resource after its spans: held whole, the service still known;
     * over the bound that way, skipped and said so. */
    n = (size_t)snprintf(text, 8192,
                         "{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[{\"traceId\":\"01\","
                         "\"spanId\":\"01\"},{\"traceId\":\"01\",\"spanId\":\"02\"}]}],"
                         "\"resource\":{\"attributes\":[{\"key\":\"service.name\",\"value\":"
                         "{\"stringValue\":\"late\"}}]}}]}\n");
    CHECK_INT(ts_run_n(&c, &ls_otlp_parser, text, n, 0), 0);
    CHECK_INT(c.n, 2);
    if (c.n == 2)
        CHECK_STR(c.spans[1].sp.service, "late");
    ts_free(&c);
    CHECK_INT(ts_run_n(&c, &ls_otlp_parser, text, n, 100), LS_EFORMAT);
    CHECK_INT(c.n, 0);
    CHECK_INT(c.nbad, 1);
    CHECK(ts_has_note(&c, "larger than 100 bytes"));
    ts_free(&c);
    free(text);
}

static void test_cut_and_odd_lines(void)
{
    static const char cut_first[] =
        "{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[{\"traceId\":\"0a\",\"spa\n"
        "{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[{\"traceId\":\"0a\",\"spanId\":\"0b\","
        "\"parentSpanId\":\"0000000000000000\",\"name\":\"bad \xff\xfe utf8 \xc3\"}]}]}]}\n"
        "\n"
        "not json\n"
        "{\"hello\":1}\n"
        "{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[{\"traceId\":\"0a\",\"spanId\":\"0c\","
        "\"attributes\":[{\"key\":\"db.system.name\",\"value\":{\"intValue\":5}}]}]}]}]}\n";
    static const char unfinished[] = "{\n \"resourceSpans\": [\n";
    ts_sink c;

    CHECK_INT(ts_run(&c, &ls_otlp_parser, cut_first), 0);
    CHECK_INT(c.n, 2);
    CHECK_INT(c.nbad, 3);
    CHECK_INT(c.bad_line[0], 1);
    CHECK_INT(c.bad_line[1], 4);
    CHECK_INT(c.bad_line[2], 5);
    if (c.n == 2) {
        CHECK_STR(c.spans[0].sp.name, "bad \xff\xfe utf8 \xc3");
        CHECK_STR(c.spans[0].sp.parent_id, "");
        CHECK_INT(c.spans[0].sp.line, 2);
        /* A number where a string belongs is kept in the text only. */
        CHECK(c.spans[1].sp.db_system == NULL);
        CHECK_STR(c.spans[1].sp.attributes, "{\"db.system.name\":5}");
    }
    ts_free(&c);

    /* No span read and a record rejected: the run fails (LS_EFORMAT). */
    CHECK_INT(ts_run(&c, &ls_otlp_parser, unfinished), LS_EFORMAT);
    CHECK_INT(c.n, 0);
    CHECK_INT(c.nbad, 1);
    CHECK(c.nbad == 1 && strstr(c.bad_reason[0], "end of the file"));
    CHECK(ts_has_note(&c, "no span could be read from this trace export (1 records rejected"));
    ts_free(&c);
}

/* The attributes text stays under its bound; what does not fit is said. */
static void test_attributes_bound(void)
{
    ts_sink c;
    size_t cap = 64 * 1024, n = 0;
    char *text = malloc(cap), *big = malloc(5001);
    int i;

    memset(big, 'x', 5000);
    big[5000] = '\0';
    n += (size_t)snprintf(text + n, cap - n,
                          "{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[{\"traceId\":\"0a\","
                          "\"spanId\":\"0b\",\"attributes\":[");
    for (i = 0; i < 5; i++)
        n += (size_t)snprintf(text + n, cap - n,
                              "{\"key\":\"k%d\",\"value\":{\"stringValue\":\"%s\"}},", i, big);
    n += (size_t)snprintf(text + n, cap - n,
                          "{\"key\":\"db.statement\",\"value\":{\"stringValue\":\"%s\"}}]}]}]}]}",
                          big);
    CHECK_INT(ts_run_n(&c, &ls_otlp_parser, text, n, 0), 0);
    CHECK_INT(c.n, 1);
    if (c.n == 1) {
        const ls_span *sp = &c.spans[0].sp;
        CHECK(sp->attributes && strlen(sp->attributes) <= LS_TRACE_ATTRS_MAX);
        CHECK(sp->attributes && strstr(sp->attributes, "\"k2\":"));
        CHECK(sp->attributes && !strstr(sp->attributes, "\"k3\":"));
        /* Folded fields do not depend on the text's bound. */
        CHECK(sp->db_statement && strlen(sp->db_statement) == 5000);
    }
    CHECK(ts_has_note(&c, "1 spans had attributes beyond"));
    ts_free(&c);
    free(text);
    free(big);
}

/* Whatever parser the sniff chose, a value is read by its shape. */
static void test_dispatch_and_sniff(void)
{
    static const char jaeger[] = "{\n  \"data\": [{\"traceID\": \"0a\", \"spans\": [{\"traceID\": "
                                 "\"0a\", \"spanID\": \"0b\", \"operationName\": \"op\"}]}]\n}\n";
    ts_sink c;

    CHECK_INT(ts_run(&c, &ls_otlp_parser, jaeger), 0);
    CHECK_INT(c.n, 1);
    if (c.n == 1)
        CHECK_STR(c.spans[0].sp.format, "jaeger");
    ts_free(&c);

    CHECK_INT(ls_otlp_parser.sniff("{\"resourceSpans\":[]}", 20), 90);
    CHECK_INT(ls_otlp_parser.sniff("{ \"resourceSpans\": [", 20), 85);
    CHECK_INT(ls_otlp_parser.sniff("{", 1), 0);
    CHECK_INT(ls_otlp_parser.sniff(" {\"resourceSpans\"\r", 18), 90);
    CHECK_INT(ls_otlp_parser.sniff("{\"timestamp\":\"2024\"}", 20), 0);
    CHECK_INT(ls_otlp_parser.sniff("[", 1), 0);
    CHECK(ls_parser_find("otlp") == &ls_otlp_parser);
}

/* The sample application's real export (samples/app, OpenTelemetry JS
 * SDK through a collector-style receiver), plain and gzip. */
static void test_sample_app(void)
{
    ts_sink plain, gz;
    int rc = ts_run_sample(&plain, &ls_otlp_parser, "traces.otlp.jsonl");
    if (rc == 0) {
        printf("samples/app/traces.otlp.jsonl absent: skipped\n");
        return;
    }
    CHECK_INT(rc, 1);
    CHECK_INT(plain.nbad, 0);
    CHECK(plain.total > 0);
    CHECK(plain.with_parent > 0 && plain.with_parent < plain.total);
    CHECK(plain.with_statement > 0);
    CHECK(plain.with_function > 0);
    CHECK(plain.with_route > 0);
    CHECK(plain.with_pid > 0);
    CHECK(plain.n > 0 && strcmp(plain.spans[0].sp.service, "shop") == 0);
    printf("samples/app OTLP: %ld spans, %ld with a statement, %ld with code.function, %ld with "
           "a backend pid\n",
           plain.total, plain.with_statement, plain.with_function, plain.with_pid);
    CHECK_INT(ts_run_sample(&gz, &ls_otlp_parser, "traces.otlp.jsonl.gz"), 1);
    CHECK_INT(gz.nbad, 0);
    ts_check_same_run(&plain, &gz);
    CHECK_INT(plain.sum_us, gz.sum_us);
    ts_free(&plain);
    ts_free(&gz);
}

/* A line fed in pieces of any size reads as the whole line does: the
 * scanner keeps its place in strings, escapes, keys and units across
 * pieces. */
static void test_pieces(void)
{
    /* (A cut line before a whole one is found by reading the whole next
     * line: test_cut_and_odd_lines; a line in pieces is not held.) */
    static const char odd[] =
        "{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[{\"traceId\":\"0a\",\"spanId\":\"0b\","
        "\"name\":\"a \\\"]}\\\\\"}]}]},{\"resource\":x},{\"scopeSpans\":[{\"spans\":[{\"traceId\":"
        "\"0a\",\"spanId\":\"0c\"}]}]}]}\n"
        "{\"resourceSpans\":[]} trailing\n"
        "not json\n"
        "[{\"traceId\":\"0a\",\"id\":\"0d\"},\"s,]\",7,[{\"traceId\":\"0a\",\"id\":\"0e\"}]]\n";
    static const char late[] =
        "{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[{\"traceId\":\"01\",\"spanId\":"
        "\"01\"}]}],\"resource\":{\"attributes\":[{\"key\":\"service.name\",\"value\":{"
        "\"stringValue\":\"late\"}}]}},{\"resource\":{},\"instrumentation_library_spans\":["
        "{\"spans\":[{\"traceId\":\"01\",\"spanId\":\"02\"}]}]}]}\n";
    static const char *const texts[] = {jsonl, pretty, odd, late};
    size_t t, piece;
    int i;

    for (t = 0; t < sizeof(texts) / sizeof(texts[0]); t++) {
        ts_sink whole, parts;
        size_t len = strlen(texts[t]);
        CHECK_INT(ts_run_n(&whole, &ls_otlp_parser, texts[t], len, 0), 0);
        CHECK(whole.total > 0);
        for (piece = 1; piece <= 40; piece++) {
            int same;
            CHECK_INT(ts_run_pieces(&parts, &ls_otlp_parser, texts[t], len, piece), 0);
            same = parts.total == whole.total && parts.n == whole.n && parts.nbad == whole.nbad &&
                   parts.sum_us == whole.sum_us && parts.errors == whole.errors;
            for (i = 0; same && i < whole.n; i++)
                same = strcmp(parts.spans[i].sp.span_id, whole.spans[i].sp.span_id) == 0 &&
                       strcmp(parts.spans[i].sp.name ? parts.spans[i].sp.name : "",
                              whole.spans[i].sp.name ? whole.spans[i].sp.name : "") == 0 &&
                       parts.spans[i].sp.line == whole.spans[i].sp.line;
            for (i = 0; same && i < whole.nbad; i++)
                same = parts.bad_line[i] == whole.bad_line[i] &&
                       strcmp(parts.bad_reason[i], whole.bad_reason[i]) == 0;
            if (!same)
                printf("text %zu in pieces of %zu: %d spans, %d bad; whole: %d, %d\n", t, piece,
                       parts.n, parts.nbad, whole.n, whole.nbad);
            CHECK(same);
            ts_free(&parts);
        }
        if (texts[t] == odd) {
            /* A span with brackets and escapes in its name, an invalid
             * element and the one after it; text after a value; a line
             * that is not JSON; a Zipkin array with a string and a number
             * among its spans and a list inside. */
            CHECK_INT(whole.n, 4);
            CHECK_INT(whole.nbad, 5);
            if (whole.n == 4) {
                CHECK_STR(whole.spans[0].sp.name, "a \"]}\\");
                CHECK_STR(whole.spans[1].sp.span_id, "000000000000000c");
                CHECK_STR(whole.spans[3].sp.span_id, "000000000000000e");
                CHECK_INT(whole.spans[3].sp.line, 4);
            }
            if (whole.nbad == 5) {
                CHECK_INT(whole.bad_line[0], 1);
                CHECK_STR(whole.bad_reason[0],
                          "an element of the export: invalid JSON (from byte 96 of the line)");
                CHECK_STR(whole.bad_text[1], "trailing");
                CHECK_INT(whole.bad_line[2], 3);
                CHECK_STR(whole.bad_reason[3],
                          "Zipkin span is not a JSON object (in the element at byte 28 of the line)");
                CHECK_STR(whole.bad_text[4], "7");
            }
        }
        ts_free(&whole);
    }
}

/*
 * The input layer in pieces: a line over LS_LINE_MAX of 3-byte characters
 * comes as pieces under one line number that put together are the line,
 * each ending between characters (but a head delivered before pieces were
 * asked for); the next line has the next number.
 */
static void test_input_pieces(void)
{
    char path[] = "/tmp/lockspan-test-pieces-XXXXXX", err[256];
    size_t n = LS_LINE_MAX + LS_LINE_MAX / 2, i, got, pieces;
    char *line = malloc(n + 16);
    const char *p;
    size_t len;
    uint64_t lineno, first = 0;
    int fd = mkstemp(path), truncated, rc, ok, late;
    ls_input *in;
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

    CHECK(f != NULL && line != NULL);
    if (!f || !line) {
        free(line);
        return;
    }
    for (i = 0; i + 3 <= n; i += 3)
        memcpy(line + i, "\xe2\x82\xac", 3); /* U+20AC */
    n = i;
    fwrite(line, 1, n, f);
    fputs("\n{}\n", f);
    fclose(f);
    for (late = 0; late <= 1; late++) {
        /* late: pieces asked for after the first delivery, as ingest does
         * once the first line told the format; that head is cut at
         * LS_LINE_MAX exactly. */
        got = pieces = 0;
        ok = 1;
        CHECK_INT(ls_input_open(&in, path, err, sizeof(err)), 0);
        if (!late)
            ls_input_set_pieces(in);
        for (;;) {
            rc = ls_input_next_line(in, &p, &len, &lineno, &truncated, err, sizeof(err));
            if (rc != 1)
                break;
            if (pieces++ == 0) {
                first = lineno;
                if (late)
                    ls_input_set_pieces(in);
            }
            if (lineno != first)
                break;
            ok = ok && (late && pieces == 1 ? len == LS_LINE_MAX : (got + len) % 3 == 0) &&
                 got + len <= n && memcmp(p, line + got, len) == 0;
            got += len;
            if (!truncated)
                break;
        }
        CHECK(ok);
        CHECK_INT(first, 1);
        CHECK_INT(got, n);
        CHECK(pieces >= 2);
        CHECK_INT(ls_input_next_line(in, &p, &len, &lineno, &truncated, err, sizeof(err)), 1);
        CHECK_INT(lineno, 2);
        CHECK(len == 2 && memcmp(p, "{}", 2) == 0 && !truncated);
        ls_input_close(in);
    }
    unlink(path);
    free(line);
}


/*
 * Bare-method HTTP span names completed with their target. The spans'
 * names, kinds and attributes are those of real exports: Node's
 * @opentelemetry/instrumentation-http without a web framework
 * (samples/blind-pool: a SERVER span "POST" with url.path "/checkins",
 * a CLIENT span "POST" with url.full "http://127.0.0.1:55543/reserve"),
 * the older conventions' http.target, a Zipkin "post", and names that
 * already say more.
 */
static void check_name(ls_span_kind kind, const char *name, const char *method,
                       const char *route, const char *path, const char *url,
                       const char *peer, const char *want)
{
    ls_span sp;
    ls_buf out;
    int rc;

    memset(&sp, 0, sizeof(sp));
    ls_buf_init(&out, LS_TRACE_NAME_MAX);
    sp.kind = kind;
    sp.name = name;
    sp.http_method = method;
    sp.http_route = route;
    sp.url_path = path;
    sp.http_url = url;
    sp.peer_service = peer;
    rc = ls_tj_http_name(&sp, &out);
    CHECK_INT(rc, want ? 1 : 0);
    if (want && rc == 1)
        CHECK_STR(ls_buf_str(&out), want);
    ls_buf_free(&out);
}

static void test_http_names(void)
{
    /* server: the route first, else the path without its query */
    check_name(LS_SPAN_SERVER, "POST", "POST", NULL, "/checkins", NULL, "127.0.0.1",
               "POST /checkins");
    check_name(LS_SPAN_SERVER, "POST", "POST", "/bookings/:id", "/bookings/7", NULL, NULL,
               "POST /bookings/:id");
    check_name(LS_SPAN_SERVER, "GET", "GET", NULL, "/events/3?full=1#top", NULL, NULL,
               "GET /events/3");
    check_name(LS_SPAN_SERVER, "HTTP GET", NULL, NULL, "/health", NULL, NULL, "GET /health");
    /* client: the peer and path of the full URL, no credentials or query */
    check_name(LS_SPAN_CLIENT, "POST", "POST", NULL, NULL, "http://127.0.0.1:55543/reserve",
               "127.0.0.1", "POST 127.0.0.1:55543/reserve");
    check_name(LS_SPAN_CLIENT, "GET", "GET", NULL, NULL,
               "https://REDACTED:REDACTED@kyc.example/v1/c/12?x=1", NULL,
               "GET kyc.example/v1/c/12");
    check_name(LS_SPAN_CLIENT, "post", NULL, NULL, "/charge", NULL, "payments",
               "post payments/charge");
    /* a name that says more, or nothing to add, stands */
    check_name(LS_SPAN_SERVER, "POST /checkout", "POST", "/checkout", NULL, NULL, NULL, NULL);
    check_name(LS_SPAN_CLIENT, "pg.query:UPDATE tickets", NULL, NULL, NULL, NULL, NULL, NULL);
    check_name(LS_SPAN_SERVER, "POST", "POST", NULL, NULL, NULL, NULL, NULL);
    check_name(LS_SPAN_CLIENT, "POST", "POST", NULL, "relative", NULL, NULL, NULL);
    check_name(LS_SPAN_INTERNAL, "PUT", "PUT", NULL, "/a", NULL, NULL, "PUT /a");
}

int main(void)
{
    test_http_names();
    test_pieces();
    test_input_pieces();
    test_json_lines();
    test_pretty_document();
    test_bound();
    test_cut_and_odd_lines();
    test_attributes_bound();
    test_dispatch_and_sniff();
    test_sample_app();
    return TEST_REPORT();
}
