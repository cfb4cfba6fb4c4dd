/* Each public header compiles on its own (this file includes exactly one; see tests/meson.build).
 */
#include HEADER
int mm_header_test_dummy(void);
int mm_header_test_dummy(void)
{
    return 0;
}
