/*
 * test_zipkin.c — the Zipkin v2 JSON trace parser: an array of spans, a
 * list of traces (/api/v2/traces), kinds, the error tag, the remote
 * endpoint as peer service, tags under old and new semantic conventions
 * (all strings, so numbers come as text), ids of 16 and 32 digits and as
 * numbers, times as numbers and strings, a pretty-printed document, JSON
 * Lines with a bad line, invalid UTF-8, and the sniff.
 *
 * Inputs are hand-made from the spec (zipkin-api's zipkin2-api.yaml, Span
 * and Endpoint); written before a real export was at hand.
 * test_sample_app() reads samples/app/'s export of a real run when it is
 * there.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ls_test.h"
#include "unit/trace_sink.h"

static const char spans[] =
    "[{\"traceId\":\"5b8efff798038103d269b633813fc60c\",\"id\":\"eee19b7ec3c1b174\","
    "\"parentId\":\"00f067aa0ba902b7\",\"name\":\"update accounts\",\"kind\":\"CLIENT\","
    "\"timestamp\":1700000000123456,\"duration\":100000,"
    "\"localEndpoint\":{\"serviceName\":\"payments-api\",\"ipv4\":\"10.0.0.1\"},"
    "\"remoteEndpoint\":{\"serviceName\":\"postgresql\",\"port\":5432},"
    "\"annotations\":[{\"timestamp\":1700000000123460,\"value\":\"x\"}],"
    "\"tags\":{\"db.statement\":\"UPDATE accounts SET b=1\",\"db.query.text\":\"UPDATE new\","
    "\"db.system\":\"postgresql\",\"code.filepath\":\"a.py\",\"code.lineno\":\"31\","
    "\"db.postgresql.backend_pid\":\"4242\",\"server.address\":\"db1\",\"error\":\"\"},"
    "\"debug\":false,\"shared\":false},"
    "{\"traceId\":\"d269b633813fc60c\",\"id\":\"00f067aa0ba902b7\",\"name\":\"post /charge \xff\","
    "\"kind\":\"SERVER\",\"timestamp\":\"1700000000000000\",\"duration\":\"300000\","
    "\"localEndpoint\":{\"serviceName\":\"web\"},\"remoteEndpoint\":{\"serviceName\":\"lb\"},"
    "\"tags\":{\"peer.service\":\"gateway\",\"http.route\":\"/charge\",\"http.method\":\"POST\","
    "\"url.full\":\"http://x/charge\",\"error\":\"false\"}},"
    "{\"traceId\":\"d269b633813fc60c\",\"id\":255,\"name\":\"local\","
    "\"timestamp\":1700000000000001,\"tags\":{\"otel.status_code\":\"ERROR\"}}]";

static void test_spans(void)
{
    ts_sink c;
    const ls_span *a, *b, *l;

    CHECK_INT(ts_run(&c, &ls_zipkin_parser, spans), 0);
    CHECK_INT(c.n, 3);
    CHECK_INT(c.nbad, 0);
    if (c.n < 3) {
        ts_free(&c);
        return;
    }
    a = &c.spans[0].sp;
    CHECK_STR(a->format, "zipkin");
    CHECK_INT(a->line, 1);
    CHECK_STR(a->trace_id, "5b8efff798038103d269b633813fc60c");
    CHECK_STR(a->span_id, "eee19b7ec3c1b174");
    CHECK_STR(a->parent_id, "00f067aa0ba902b7");
    CHECK_STR(a->name, "update accounts");
    CHECK_INT(a->kind, LS_SPAN_CLIENT);
    CHECK_STR(a->service, "payments-api");
    CHECK_INT(a->start, 1700000000123456LL);
    CHECK_INT(a->end, 1700000000223456LL);
    CHECK_INT(a->error, 1);
    CHECK_STR(a->db_statement, "UPDATE new");
    CHECK_STR(a->db_system, "postgresql");
    CHECK_STR(a->code_filepath, "a.py");
    CHECK_INT(a->code_lineno, 31);
    CHECK_INT(a->db_pid, 4242);
    /* The remote service's name beats a host name. */
    CHECK_STR(a->peer_service, "postgresql");
    CHECK(a->attributes && strstr(a->attributes, "\"code.lineno\":\"31\""));

    b = &c.spans[1].sp;
    CHECK_STR(b->trace_id, "0000000000000000d269b633813fc60c");
    CHECK_STR(b->parent_id, "");
    CHECK_STR(b->name, "post /charge \xff");
    CHECK_INT(b->kind, LS_SPAN_SERVER);
    CHECK_INT(b->start, 1700000000000000LL);
    CHECK_INT(b->end, 1700000000300000LL);
    CHECK_INT(b->error, 0);
    CHECK_STR(b->peer_service, "gateway");
    CHECK_STR(b->http_route, "/charge");
    CHECK_STR(b->http_method, "POST");
    CHECK_STR(b->http_url, "http://x/charge");

    l = &c.spans[2].sp;
    CHECK_STR(l->span_id, "00000000000000ff");
    CHECK_INT(l->kind, LS_SPAN_UNSPECIFIED);
    CHECK_INT(l->error, 1);
    CHECK_INT(l->end, LS_TS_NONE);
    CHECK(l->peer_service == NULL && l->service == NULL);
    ts_free(&c);
}

/* /api/v2/traces pretty-printed: a list of traces; bad spans in it. */
static void test_traces(void)
{
    static const char traces[] = "[\n"
                                 "  [\n"
                                 "    {\"traceId\": \"0a\", \"id\": \"0b\", \"name\": \"a\"},\n"
                                 "    {\"traceId\": \"0a\", \"id\": \"0c\", \"parentId\": \"0b\"}\n"
                                 "  ],\n"
                                 "  [\n"
                                 "    {\"traceId\": \"0e\", \"id\": \"0f\"},\n"
                                 "    {\"traceId\": \"0e\", \"id\": \"0123456789abcdef0\"},\n"
                                 "    \"not a span\"\n"
                                 "  ]\n"
                                 "]\n";
    static const char lines[] = "[{\"traceId\":\"0a\",\"id\":\"01\"}]\n"
                                "[{\"traceId\":\"0a\",\"id\":\"02\"}\n"
                                "{\"traceId\":\"0a\",\"id\":\"03\"}\n";
    ts_sink c;

    CHECK_INT(ts_run(&c, &ls_zipkin_parser, traces), 0);
    CHECK_INT(c.n, 3);
    CHECK_INT(c.nbad, 2);
    if (c.n == 3) {
        CHECK_STR(c.spans[1].sp.parent_id, "000000000000000b");
        CHECK_STR(c.spans[2].sp.trace_id, "0000000000000000000000000000000e");
        CHECK_INT(c.spans[2].sp.line, 0);
    }
    CHECK(c.nbad == 2 && strstr(c.bad_text[0], "0123456789abcdef0"));
    ts_free(&c);

    /* The cut line 2 is reported; its span, complete before the cut, is
     * read (spans are read one by one, not the line whole). */
    CHECK_INT(ts_run(&c, &ls_zipkin_parser, lines), 0);
    CHECK_INT(c.n, 3);
    CHECK_INT(c.nbad, 1);
    CHECK_INT(c.bad_line[0], 2);
    if (c.n == 3) {
        CHECK_STR(c.spans[1].sp.span_id, "0000000000000002");
        CHECK_INT(c.spans[1].sp.line, 2);
        CHECK_INT(c.spans[2].sp.line, 3);
    }
    ts_free(&c);

    /* The bound is per span: the three over 40 bytes are skipped and said
     * so, the one under it is read, the string is a bad span. */
    CHECK_INT(ts_run_n(&c, &ls_zipkin_parser, traces, strlen(traces), 40), 0);
    CHECK_INT(c.n, 1);
    if (c.n == 1)
        CHECK_STR(c.spans[0].sp.span_id, "000000000000000f");
    CHECK_INT(c.nbad, 4);
    CHECK(ts_has_note(&c, "line 3: the JSON value starting here (at byte 4 of the line) is larger than 40 bytes"));
    CHECK(ts_has_note(&c, "3 elements of the export were not read (0 invalid JSON, 3 over"));
    ts_free(&c);
}

static void test_sniff(void)
{
    CHECK_INT(ls_zipkin_parser.sniff(spans, strlen(spans)), 90);
    CHECK_INT(ls_zipkin_parser.sniff("[[{\"traceId\":\"0a\"}]]", 20), 90);
    CHECK_INT(ls_zipkin_parser.sniff("[", 1), 0);
    CHECK_INT(ls_zipkin_parser.sniff("[[", 2), 0);
    CHECK_INT(ls_zipkin_parser.sniff("[]", 2), 0);
    CHECK_INT(ls_zipkin_parser.sniff("{", 1), 0);
    CHECK_INT(ls_zipkin_parser.sniff("{\"data\":[", 9), 0);
    CHECK(ls_parser_find("zipkin") == &ls_zipkin_parser);
}

/* Every registered parser's sniff on the three shapes: the right one wins. */
static void test_detection(void)
{
    static const struct {
        const char *line;
        const char *want;
    } cases[] = {
        {"{\"resourceSpans\":[{\"resource\":{}}]}", "otlp"},
        {"{\"data\":[{\"traceID\":\"0a\",\"spans\":[]}]}", "jaeger"},
        {"[{\"traceId\":\"0a\",\"id\":\"0b\"}]", "zipkin"},
        /* A bare bracket may open any JSON (a truth.json beside the
         * logs): no parser claims it but weakly (jsonlog's pretty-printed
         * Cloud SQL export, which ingest takes only when a later line is
         * one of its fields: SNIFF_WEAK in src/ingest/ingest.c). */
        {"{", NULL},
        {"[", NULL},
    };
    size_t i;
    int k;
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const char *best = NULL;
        int best_score = 0;
        for (k = 0; ls_parsers[k]; k++) {
            int sc = ls_parsers[k]->sniff(cases[i].line, strlen(cases[i].line));
            if (sc > best_score) {
                best_score = sc;
                best = ls_parsers[k]->name;
            }
        }
        if (cases[i].want)
            CHECK_STR(best, cases[i].want);
        else
            CHECK(best == NULL || best_score <= 30);
    }
}

/* The sample application's run (samples/app) as Zipkin and as OTLP: the
 * same spans. */
static void test_sample_app(void)
{
    ts_sink got, otlp;
    int rc = ts_run_sample(&got, &ls_zipkin_parser, "traces.zipkin.json");
    if (rc == 0) {
        printf("samples/app/traces.zipkin.json absent: skipped\n");
        return;
    }
    CHECK_INT(rc, 1);
    CHECK_INT(got.nbad, 0);
    CHECK(got.total > 0 && got.with_statement > 0 && got.with_pid > 0);
    CHECK_INT(ts_run_sample(&otlp, &ls_otlp_parser, "traces.otlp.jsonl"), 1);
    ts_check_same_run(&got, &otlp);
    printf("samples/app Zipkin: %ld spans, OTLP %ld\n", got.total, otlp.total);
    ts_free(&got);
    ts_free(&otlp);
}

int main(void)
{
    test_spans();
    test_traces();
    test_sniff();
    test_detection();
    test_sample_app();
    return TEST_REPORT();
}
