# Issue 15, part "core" (docs/fields.md 1, 2, 6 binary): the call, the
# context, the entries, binary records. Included by tests/CMakeLists.txt.
llog_tests(LABEL unit TIMEOUT 120 NAMES test_kv test_ctx)
if(TARGET test_kv)
  target_link_libraries(test_kv PRIVATE m)
endif()
