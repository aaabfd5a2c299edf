# Issue 15, part "out": the fields in every sink (docs/fields.md 3-5).
# Included by tests/CMakeLists.txt.

# Text lines (exact lines from the contract) and JSON lines read back by
# python3's json (tests/fields/check_json.py).
if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/test_fields_out.c)
  llog_test(test_fields_out LABEL unit TIMEOUT 120)
  target_include_directories(test_fields_out PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
  target_compile_definitions(test_fields_out PRIVATE
    CHECK_JSON="${CMAKE_CURRENT_SOURCE_DIR}/fields/check_json.py")
endif()

# RFC 5424 structured data through the real syslog sink to a real
# rsyslogd, parsed back by rsyslog's mmpstrucdata (tests/fields/). Exits
# 77 (skipped) without rsyslogd.
if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/fields/syslog_sd.c)
  add_executable(test_fields_syslog fields/syslog_sd.c)
  target_include_directories(test_fields_syslog PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
  target_link_libraries(test_fields_syslog PRIVATE llog llog_build_flags)
  add_test(NAME test_fields_syslog COMMAND test_fields_syslog
    ${CMAKE_CURRENT_SOURCE_DIR}/fields/rsyslog.conf.in
    ${CMAKE_CURRENT_SOURCE_DIR}/fields/check_sd.py)
  set_tests_properties(test_fields_syslog PROPERTIES LABELS integration TIMEOUT 120
                                                     SKIP_RETURN_CODE 77)
endif()

# journal fields through the real journald sink to a real systemd-journald
# in a namespace of the test's own, read back with journalctl (skipped, 77,
# without root, journald or journalctl).
if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/fields/journald_fields.c)
  add_executable(test_fields_journald fields/journald_fields.c)
  target_include_directories(test_fields_journald PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
  target_link_libraries(test_fields_journald PRIVATE llog llog_build_flags)
  add_test(NAME test_fields_journald COMMAND test_fields_journald
    ${CMAKE_CURRENT_SOURCE_DIR}/fields/check_journal.py)
  set_tests_properties(test_fields_journald PROPERTIES LABELS integration TIMEOUT 120
                                                       SKIP_RETURN_CODE 77)
endif()
