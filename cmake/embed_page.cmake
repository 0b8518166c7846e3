# Makes the report's page (src/tools/report/page/) into C: report.html with
# report.css and report.js put where it says <!--@css--> and <!--@js-->,
# as the bytes of `const char report_page[]`, NUL-terminated. Fails the
# build when a slot report.c fills (title, header, main, version) is not
# there exactly once, in that order.
# usage: cmake -DPAGE_DIR=... -DOUT=... -P embed_page.cmake
file(READ ${PAGE_DIR}/report.html page)
file(READ ${PAGE_DIR}/report.css css)
file(READ ${PAGE_DIR}/report.js js)
# What the page carries of them: their opening comment (what the file is,
# for its reader) and each line's indentation left out (neither matters
# to CSS or to the script, which has no multi-line string).
foreach(part css js)
  string(REGEX REPLACE "^/\\*([^*]|\\*+[^*/])*\\*+/\n*" "" ${part} "${${part}}")
  string(REGEX REPLACE "\n[ ]+" "\n" ${part} "${${part}}")
  string(REGEX REPLACE "^[ ]+" "" ${part} "${${part}}")
  string(STRIP "${${part}}" ${part})
endforeach()
foreach(part css js)
  string(FIND "${page}" "<!--@${part}-->" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${PAGE_DIR}/report.html has no <!--@${part}-->")
  endif()
  string(REPLACE "<!--@${part}-->" "${${part}}" page "${page}")
endforeach()
set(last -1)
foreach(slot title header main version)
  string(FIND "${page}" "<!--@${slot}-->" first)
  string(FIND "${page}" "<!--@${slot}-->" final REVERSE)
  if(first EQUAL -1 OR NOT first EQUAL final OR NOT first GREATER last)
    message(FATAL_ERROR "${PAGE_DIR}: the slot <!--@${slot}--> must be there once, after the "
      "slots before it (title, header, main, version)")
  endif()
  set(last ${first})
endforeach()
file(WRITE ${OUT}.page "${page}")
file(READ ${OUT}.page hex HEX)
file(REMOVE ${OUT}.page)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" bytes "${bytes}")
file(WRITE ${OUT}.tmp "/* Made by cmake/embed_page.cmake from src/tools/report/page/: edit those. */\n"
  "#include \"report/report_html.h\"\n\nconst char report_page[] = {\n${bytes}0x00};\n")
configure_file(${OUT}.tmp ${OUT} COPYONLY) # rewritten only when it changed
file(REMOVE ${OUT}.tmp)
