/* evidence.c — helpers that write a run's evidence (lab.h), for the layers,
 * the boxes and the run alike. */
#include "evidence.h"
#include "util.h"

#include <stdarg.h>
#include <stdio.h>

void mech_add(struct lab_evidence *ev, const char *fmt, ...)
{
	char m[LAB_LINE];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(m, sizeof m, fmt, ap);
	va_end(ap);
	str_append(ev->mechanisms, sizeof ev->mechanisms, "%s%s", ev->mechanisms[0] ? ", " : "", m);
}
