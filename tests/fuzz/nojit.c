/*
 * nojit.c — linked into every fuzz target: PCRE2's JIT compiler reports
 * itself unavailable, so parsers/prefix.c takes its existing no-JIT path
 * (pcre2_match, as on a system without JIT) and gives the same matches.
 *
 * Why: each JIT compilation maps executable memory, and prefix inference
 * compiles up to 64 candidate prefixes per file, so with the JIT the
 * stderr_infer and syslog targets ran about 30 inputs a second; the code
 * under test (ours) is the same either way. Only the fuzz targets define
 * this symbol; the CLI and the tests keep the JIT.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

int pcre2_jit_compile_8(pcre2_code_8 *code, uint32_t options)
{
    (void)code;
    (void)options;
    return PCRE2_ERROR_JIT_BADOPTION;
}
