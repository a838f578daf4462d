/*
 * test_sqlcomment.c — sqlcommenter and marginalia tags. Forms from the
 * sqlcommenter spec (google.github.io/sqlcommenter/spec) and from Rails'
 * marginalia README.
 */
#include "ls_sqlcomment.h"
#include "ls_test.h"

int main(void)
{
    ls_sqltags t;
    CHECK_INT(ls_sqlcomment_parse("SELECT * FROM FOO /*action='%2Fparam*d',controller='index'"
                                  ",framework='spring',traceparent='00-5bd66ef5095369c7b0d1f8f4"
                                  "bd33716a-c532cb4098ac3dd2-01',tracestate='congo%3Dt61rcWkgMzE"
                                  "%2Crojo%3D00f067aa0ba902b7'*/",
                                  &t),
              5);
    CHECK_STR(ls_sqltags_get(&t, "action"), "/param*d");
    CHECK_STR(ls_sqltags_get(&t, "controller"), "index");
    CHECK_STR(ls_sqltags_get(&t, "tracestate"), "congo=t61rcWkgMzE,rojo=00f067aa0ba902b7");
    CHECK_STR(t.trace_id, "5bd66ef5095369c7b0d1f8f4bd33716a");
    CHECK_STR(t.span_id, "c532cb4098ac3dd2");

    /* The last comment counts; an escaped quote stays in the value. */
    CHECK_INT(ls_sqlcomment_parse("/* leading */ UPDATE a SET b = 1 /*route='%2Fpay',"
                                  "name='O\\'Brien'*/",
                                  &t),
              2);
    CHECK_STR(ls_sqltags_get(&t, "route"), "/pay");
    CHECK_STR(ls_sqltags_get(&t, "name"), "O'Brien");
    CHECK_STR(t.trace_id, "");

    /* marginalia */
    CHECK_INT(ls_sqlcomment_parse("SELECT 1 /*application:Shop,controller:orders,action:create*/",
                                  &t),
              3);
    CHECK_STR(ls_sqltags_get(&t, "controller"), "orders");
    CHECK_STR(ls_sqltags_get(&t, "action"), "create");

    /* No comment, an unterminated one, a malformed traceparent. */
    CHECK_INT(ls_sqlcomment_parse("SELECT 1", &t), 0);
    CHECK_INT(ls_sqlcomment_parse("SELECT 1 /*route='x'", &t), 0);
    ls_sqlcomment_parse("SELECT 1 /*traceparent='00-xyz-abc-01'*/", &t);
    CHECK_STR(t.trace_id, "");
    CHECK(ls_sqltags_get(&t, "missing") == NULL);
    return TEST_REPORT();
}
