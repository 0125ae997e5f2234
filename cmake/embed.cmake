# embed.cmake — writes a text file as a C string: -DIN=file -DOUT=header -DNAME=identifier.
# The PyPTO driver (oracle/pypto.py) travels inside the binaries this way, so a
# ptofuzz anywhere runs the driver it was built with.
file(READ "${IN}" text)
string(REPLACE "\\" "\\\\" text "${text}")
string(REPLACE "\"" "\\\"" text "${text}")
string(REPLACE "\n" "\\n\"\n\"" text "${text}")
file(WRITE "${OUT}.tmp" "/* generated from ${IN} by cmake/embed.cmake */\nstatic const char ${NAME}[] =\n\"${text}\";\n")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different "${OUT}.tmp" "${OUT}")
file(REMOVE "${OUT}.tmp")
