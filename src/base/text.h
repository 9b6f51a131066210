/* text.h — text made safe to show, and shown in the user's locale. */
#ifndef LAB_TEXT_H
#define LAB_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Control characters and escapes made inert: "\x1b" -> "^[", invalid UTF-8 -> "\xNN".
 * Keeps \n and turns \t into spaces. Caller frees. */
char *sanitize_output(const char *buf, size_t len, size_t max_bytes);
/* s made one line in place: a newline or carriage return in it becomes the
 * two characters \n or \r (cut to cap): a sentence that quotes a name the
 * snippet chose stays one line of every report. */
void text_one_line(char *s, size_t cap);
/* Text for people in the user's locale. When LC_CTYPE's character set is
 * not UTF-8 (LC_ALL=C, a Latin-1 terminal), the text writers (run's and
 * matrix's text, list, --help, the lab screen) spell the lab's punctuation
 * in ASCII: an em dash as "--", an arrow as "->", an ellipsis as "...",
 * curly quotes as straight ones; any other non-ASCII character as \uXXXX,
 * a byte that is not UTF-8 as \xNN. JSON stays UTF-8 always.
 * report_utf8: the environment's LC_CTYPE is UTF-8 (asked once, without
 * setlocale). report_to_ascii: that transliteration, always (malloc'd).
 * report_ascii_text: a malloc'd copy of s, ASCII unless report_utf8().
 * report_fputs: fputs through report_ascii_text. Control characters pass
 * unchanged: making snippet text inert is sanitize_output's job. */
bool report_utf8(void);
char *report_to_ascii(const char *s);
char *report_ascii_text(const char *s);
int report_fputs(const char *s, FILE *f);

#endif
