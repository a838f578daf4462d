/*
 * test_jaeger.c — the Jaeger JSON trace parser: the query API / UI download
 * shape on one line and pretty-printed, processes by processID and inline,
 * CHILD_OF before FOLLOWS_FROM, FOLLOWS_FROM alone, a reference into
 * another trace, 16- and 32-digit ids (left-padded), times as numbers and
 * strings, span.kind and error tags, old and new semantic conventions,
 * JSON Lines of traces with a bad line, invalid UTF-8, and the sniff.
 *
 * Inputs are hand-made from the spec (Jaeger's query API JSON model, as
 * jaeger-ui's types/trace.tsx reads it); written before a real export
 * was at hand. test_sample_app() reads samples/app/'s export of a real run
 * when it is there.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ls_test.h"
#include "unit/trace_sink.h"

static const char download[] =
    "{\"data\":[{\"traceID\":\"d269b633813fc60c\",\"spans\":["
    "{\"traceID\":\"d269b633813fc60c\",\"spanID\":\"eee19b7ec3c1b174\",\"flags\":1,"
    "\"operationName\":\"UPDATE shop.accounts\",\"references\":["
    "{\"refType\":\"FOLLOWS_FROM\",\"traceID\":\"d269b633813fc60c\",\"spanID\":\"1111111111111111\"},"
    "{\"refType\":\"CHILD_OF\",\"traceID\":\"d269b633813fc60c\",\"spanID\":\"f067aa0ba902b7\"}],"
    "\"startTime\":1700000000123456,\"duration\":100000,\"tags\":["
    "{\"key\":\"span.kind\",\"type\":\"string\",\"value\":\"client\"},"
    "{\"key\":\"db.statement\",\"type\":\"string\",\"value\":\"UPDATE accounts SET b=1\"},"
    "{\"key\":\"db.system\",\"type\":\"string\",\"value\":\"postgresql\"},"
    "{\"key\":\"db.name\",\"type\":\"string\",\"value\":\"old\"},"
    "{\"key\":\"db.namespace\",\"type\":\"string\",\"value\":\"shop\"},"
    "{\"key\":\"code.lineno\",\"type\":\"int64\",\"value\":12},"
    "{\"key\":\"db.postgresql.backend_pid\",\"type\":\"int64\",\"value\":4242},"
    "{\"key\":\"error\",\"type\":\"bool\",\"value\":true},"
    "{\"key\":\"ratio\",\"type\":\"float64\",\"value\":0.25}],"
    "\"logs\":[{\"timestamp\":1700000000123460,\"fields\":[{\"key\":\"event\",\"type\":\"string\","
    "\"value\":\"x\"}]}],\"processID\":\"p1\",\"warnings\":null},"
    "{\"traceID\":\"d269b633813fc60c\",\"spanID\":\"00f067aa0ba902b7\","
    "\"operationName\":\"consume \xff\xfe\",\"references\":["
    "{\"refType\":\"FOLLOWS_FROM\",\"traceID\":\"d269b633813fc60c\",\"spanID\":\"2222222222222222\"}],"
    "\"startTime\":\"1700000000000000\",\"duration\":\"300000\",\"tags\":["
    "{\"key\":\"span.kind\",\"type\":\"string\",\"value\":\"consumer\"},"
    "{\"key\":\"code.function.name\",\"type\":\"string\",\"value\":\"Worker.run\"},"
    "{\"key\":\"code.function\",\"type\":\"string\",\"value\":\"run\"},"
    "{\"key\":\"code.line.number\",\"type\":\"int64\",\"value\":\"99\"},"
    "{\"key\":\"error\",\"type\":\"bool\",\"value\":false},"
    "{\"key\":\"http.request.method\",\"type\":\"string\",\"value\":\"GET\"}],"
    "\"processID\":\"p2\"},"
    "{\"traceID\":\"d269b633813fc60c\",\"spanID\":\"3333333333333333\",\"operationName\":\"root\","
    "\"references\":[{\"refType\":\"CHILD_OF\",\"traceID\":\"ffffffffffffffff\","
    "\"spanID\":\"4444444444444444\"}],\"startTime\":1700000000000000,"
    "\"process\":{\"serviceName\":\"inline\",\"tags\":[]},\"tags\":["
    "{\"key\":\"otel.status_code\",\"type\":\"string\",\"value\":\"ERROR\"}]}"
    "],\"processes\":{\"p1\":{\"serviceName\":\"payments-api\",\"tags\":[{\"key\":\"hostname\","
    "\"type\":\"string\",\"value\":\"h1\"}]},\"p2\":{\"serviceName\":\"worker\",\"tags\":[]}},"
    "\"warnings\":null}],\"total\":0,\"limit\":0,\"offset\":0,\"errors\":null}";

static void test_download(void)
{
    ts_sink c;
    const ls_span *a, *b, *r;

    CHECK_INT(ts_run(&c, &ls_jaeger_parser, download), 0);
    CHECK_INT(c.n, 3);
    CHECK_INT(c.nbad, 0);
    if (c.n < 3) {
        ts_free(&c);
        return;
    }
    a = &c.spans[0].sp;
    CHECK_STR(a->format, "jaeger");
    CHECK_INT(a->line, 1);
    CHECK_STR(a->trace_id, "0000000000000000d269b633813fc60c");
    CHECK_STR(a->span_id, "eee19b7ec3c1b174");
    CHECK_STR(a->parent_id, "00f067aa0ba902b7");
    CHECK_STR(a->name, "UPDATE shop.accounts");
    CHECK_INT(a->kind, LS_SPAN_CLIENT);
    CHECK_STR(a->service, "payments-api");
    CHECK_INT(a->start, 1700000000123456LL);
    CHECK_INT(a->end, 1700000000223456LL);
    CHECK_INT(a->error, 1);
    CHECK_STR(a->db_statement, "UPDATE accounts SET b=1");
    CHECK_STR(a->db_system, "postgresql");
    CHECK_STR(a->db_name, "shop");
    CHECK_INT(a->code_lineno, 12);
    CHECK_INT(a->db_pid, 4242);
    CHECK(a->attributes && strstr(a->attributes, "\"span.kind\":\"client\""));
    CHECK(a->attributes && strstr(a->attributes, "\"error\":true,\"ratio\":0.25}"));
    CHECK(a->attributes && !strstr(a->attributes, "hostname"));

    b = &c.spans[1].sp;
    CHECK_STR(b->parent_id, "2222222222222222");
    CHECK_STR(b->name, "consume \xff\xfe");
    CHECK_INT(b->kind, LS_SPAN_CONSUMER);
    CHECK_STR(b->service, "worker");
    CHECK_INT(b->start, 1700000000000000LL);
    CHECK_INT(b->end, 1700000000300000LL);
    CHECK_INT(b->error, 0);
    CHECK_STR(b->code_function, "Worker.run");
    CHECK_INT(b->code_lineno, 99);
    CHECK_STR(b->http_method, "GET");

    r = &c.spans[2].sp;
    CHECK_STR(r->parent_id, "");
    CHECK_STR(r->service, "inline");
    CHECK_INT(r->error, 1);
    CHECK_INT(r->kind, LS_SPAN_UNSPECIFIED);
    CHECK_INT(r->end, LS_TS_NONE);
    ts_free(&c);
}

/* The same file pretty-printed, and JSON Lines of trace objects. */
static void test_layouts(void)
{
    static const char pretty[] =
        "{\n"
        "  \"data\": [\n"
        "    {\n"
        "      \"traceID\": \"5b8efff798038103d269b633813fc60c\",\n"
        "      \"spans\": [\n"
        "        {\n"
        "          \"traceID\": \"5b8efff798038103d269b633813fc60c\",\n"
        "          \"spanID\": \"eee19b7ec3c1b174\",\n"
        "          \"operationName\": \"GET /\",\n"
        "          \"references\": [],\n"
        "          \"startTime\": 1700000000000000,\n"
        "          \"duration\": 5,\n"
        "          \"tags\": [{\"key\": \"span.kind\", \"type\": \"string\", \"value\": \"server\"}],\n"
        "          \"processID\": \"p1\"\n"
        "        },\n"
        "        {\n"
        "          \"traceID\": \"5b8efff798038103d269b633813fc60c\",\n"
        "          \"spanID\": \"zz\",\n"
        "          \"operationName\": \"bad id\"\n"
        "        }\n"
        "      ],\n"
        "      \"processes\": {\"p1\": {\"serviceName\": \"web\"}}\n"
        "    }\n"
        "  ]\n"
        "}\n";
    static const char lines[] =
        "{\"traceID\":\"0a\",\"spans\":[{\"spanID\":\"0b\",\"operationName\":\"one\"}]}\n"
        "{\"traceID\":\"0a\",\"spans\":[{\"spanID\":\"0c\",\"operationName\":\"two\"\n"
        "{\"traceID\":\"0a\",\"spans\":[{\"spanID\":\"0d\",\"operationName\":\"three\","
        "\"references\":[{\"refType\":\"CHILD_OF\",\"spanID\":\"0b\"}]}]}\n";
    ts_sink c;

    CHECK_INT(ts_run(&c, &ls_jaeger_parser, pretty), 0);
    CHECK_INT(c.n, 1);
    CHECK_INT(c.nbad, 1);
    if (c.n == 1) {
        CHECK_STR(c.spans[0].sp.trace_id, "5b8efff798038103d269b633813fc60c");
        CHECK_STR(c.spans[0].sp.service, "web");
        CHECK_INT(c.spans[0].sp.kind, LS_SPAN_SERVER);
        CHECK_INT(c.spans[0].sp.line, 0);
    }
    CHECK(c.nbad == 1 && strstr(c.bad_reason[0], "spanID"));
    ts_free(&c);

    CHECK_INT(ts_run(&c, &ls_jaeger_parser, lines), 0);
    CHECK_INT(c.n, 2);
    CHECK_INT(c.nbad, 1);
    CHECK_INT(c.bad_line[0], 2);
    if (c.n == 2) {
        /* The trace's id stands for spans without their own. */
        CHECK_STR(c.spans[0].sp.trace_id, "0000000000000000000000000000000a");
        CHECK_STR(c.spans[0].sp.span_id, "000000000000000b");
        CHECK_INT(c.spans[0].sp.line, 1);
        CHECK_STR(c.spans[1].sp.parent_id, "000000000000000b");
        CHECK_INT(c.spans[1].sp.line, 3);
    }
    ts_free(&c);
}

static void test_bound_and_sniff(void)
{
    static const char doc[] = "{\n  \"data\": [\n    {\"traceID\": \"0a\", \"spans\": [\n"
                              "      {\"spanID\": \"0b\", \"operationName\": \"a long name\"}\n"
                              "    ]}\n  ]\n}\n";
    ts_sink c;

    CHECK_INT(ts_run_n(&c, &ls_jaeger_parser, doc, strlen(doc), 40), LS_EFORMAT);
    CHECK_INT(c.n, 0);
    CHECK_INT(c.nbad, 1);
    CHECK(ts_has_note(&c, "larger than 40 bytes"));
    ts_free(&c);

    CHECK_INT(ls_jaeger_parser.sniff(download, strlen(download)), 90);
    CHECK_INT(ls_jaeger_parser.sniff("{\"data\":[", 9), 90);
    CHECK_INT(ls_jaeger_parser.sniff("{\"data\": {}}", 12), 0);
    CHECK_INT(ls_jaeger_parser.sniff("{\"traceID\":\"0a\",\"spans\":[]}", 26), 90);
    CHECK_INT(ls_jaeger_parser.sniff("{", 1), 0);
    CHECK_INT(ls_jaeger_parser.sniff("{\"resourceSpans\":[]}", 20), 0);
    CHECK(ls_parser_find("jaeger") == &ls_jaeger_parser);
}

/* The sample application's run (samples/app) as Jaeger and as OTLP: the
 * same spans. */
static void test_sample_app(void)
{
    ts_sink got, otlp;
    int rc = ts_run_sample(&got, &ls_jaeger_parser, "traces.jaeger.json");
    if (rc == 0) {
        printf("samples/app/traces.jaeger.json absent: skipped\n");
        return;
    }
    CHECK_INT(rc, 1);
    CHECK_INT(got.nbad, 0);
    CHECK(got.total > 0 && got.with_statement > 0 && got.with_pid > 0);
    CHECK_INT(ts_run_sample(&otlp, &ls_otlp_parser, "traces.otlp.jsonl"), 1);
    ts_check_same_run(&got, &otlp);
    printf("samples/app Jaeger: %ld spans, OTLP %ld\n", got.total, otlp.total);
    ts_free(&got);
    ts_free(&otlp);
}

int main(void)
{
    test_download();
    test_layouts();
    test_bound_and_sniff();
    test_sample_app();
    return TEST_REPORT();
}
