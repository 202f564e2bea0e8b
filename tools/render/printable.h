// tools/render/printable.h: text from a file (a destination, a service or a
// method name, a path) made safe to print on one line of a terminal.
//
//   Printable("a\nb")       // "a\x0ab"
//   Printable("caf\xc3\xa9") // unchanged: valid UTF-8 that controls nothing
//
// Control characters (C0, DEL, and C1 as UTF-8) and bytes that are not
// valid UTF-8 become \xHH, one per byte: a NUL no longer ends the output, a
// newline no longer forges a second line, an escape sequence no longer
// drives the terminal. Backslashes stay as they are, so Printable is
// idempotent: a message built from printable parts can be passed again.
//
// Thread safety: a pure function.
#pragma once

#include <string>
#include <string_view>

namespace stormguard::render {

std::string Printable(std::string_view text);
// Whether Printable(text) == text, without making a copy.
bool IsPrintable(std::string_view text);

}  // namespace stormguard::render
