# Issue 15, part "cat" (docs/fields.md 6): llogcat reads structured fields
# back. Included by tests/CMakeLists.txt.
#   test_fields_parse   the field section parser, message unescaping and
#                       --where (tools/fields.c), unit
#   llogcat_fields_*    llogcat on files made here (tests/tools/mkllog.py):
#                       --json through python3's json, --where, malformed
#                       sections, file format versions
#   llogcat_fixtures_v1 the version-1 files of tests/fixtures/ (gen_v1.c)
#   llogcat_fixture_ldbl a long double site's binary file of 48f1f2b (gen_ldbl.c)
if(NOT TARGET llogcat)
  return()
endif()

add_executable(test_fields_parse ${PROJECT_SOURCE_DIR}/tests/tools/test_fields_parse.c)
target_link_libraries(test_fields_parse PRIVATE llogcat_fields PkgConfig::CMOCKA m
                                                llog_build_flags)
add_test(NAME test_fields_parse COMMAND test_fields_parse)
set_tests_properties(test_fields_parse PROPERTIES LABELS unit TIMEOUT 60)

find_program(LLOG_PYTHON3 python3)
foreach(case IN ITEMS json where jsonlines malformed versions)
  add_test(NAME llogcat_fields_${case}
    COMMAND bash ${PROJECT_SOURCE_DIR}/tests/tools/test_fields_cat.sh
            $<TARGET_FILE:llogcat> ${case})
  set_tests_properties(llogcat_fields_${case} PROPERTIES LABELS integration TIMEOUT 120
                                                         SKIP_RETURN_CODE 77)
endforeach()
add_test(NAME llogcat_fixtures_v1
  COMMAND bash ${PROJECT_SOURCE_DIR}/tests/tools/test_fixtures_v1.sh
          $<TARGET_FILE:llogcat> ${PROJECT_SOURCE_DIR}/tests/fixtures)
set_tests_properties(llogcat_fixtures_v1 PROPERTIES LABELS integration TIMEOUT 120
                                                    SKIP_RETURN_CODE 77)
# a long double site's file from before typed calls (gen_ldbl.c)
add_test(NAME llogcat_fixture_ldbl
  COMMAND bash ${PROJECT_SOURCE_DIR}/tests/tools/test_fixture_ldbl.sh
          $<TARGET_FILE:llogcat> ${PROJECT_SOURCE_DIR}/tests/fixtures)
set_tests_properties(llogcat_fixture_ldbl PROPERTIES LABELS integration TIMEOUT 60)
