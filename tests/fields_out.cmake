# Issue 15, part "out": the fields in every sink (docs/fields.md 3-5).
# Included by tests/CMakeLists.txt.

# Text lines (exact lines from the contract) and JSON lines read back by
# python3's json (tests/fields/check_json.py).
if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/test_fields_out.c)
  llog_test(test_fields_out LABEL unit TIMEOUT 120)
  target_compile_definitions(test_fields_out PRIVATE
    CHECK_JSON="${CMAKE_CURRENT_SOURCE_DIR}/fields/check_json.py")
endif()
