# Doxygen INPUT_FILTER for tridsim's headers (cmake/TridsimDocs.cmake): their comments are plain
# // lines. `#pragma once` becomes `/// \file`, so the first comment block of a header is its file
# description; every other whole-line // comment becomes a /// comment of what follows, and a //
# after code on the same line a ///< comment of that line's member. Line numbers are kept.
/^#pragma once/ { print "/// \\file"; next }
/^[ \t]*\/\/([^\/]|$)/ { sub(/\/\//, "///"); print; next }
/[;,{)][ \t]+\/\/ / && !/"[^"]*\/\/[^"]*"/ { sub(/[ \t]+\/\/ /, " ///< ") }
{ print }
