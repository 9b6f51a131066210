/* twin.h — the lab's layers said in another sandbox's words: for a setup
 * (a set of layers, a rung, No-network's mode), the equivalent `docker
 * run` or `bwrap` command line, flag by flag with what each flag stops,
 * then what that tool does not cover that the lab does, and the reverse
 * (`containment-lab twin`, the screen's d). Pure text from the config and
 * the setup: nothing is run. */
#ifndef TWIN_H
#define TWIN_H

#include "lab.h"
#include "util.h" /* struct strbuf */

enum twin_tool { TWIN_DOCKER, TWIN_BWRAP };

/* Appends to b how a real agent's runtime does the tool snippets' door and
 * gate (`twin --tools`, and `d` on a tool snippet): the three tools as
 * tool definitions, the door as a socket the container is given, and the
 * gate as the runtime's own approval step, outside the code. */
void twin_tools_text(enum twin_tool tool, struct strbuf *b);
/* Appends the twin's text to b, lines ending in '\n': the run spec
 * (spec.h) of these layers rendered as the tool's flags, for this host. */
void twin_text(const struct lab_config *cfg, const struct lab_setup *setup, enum twin_tool tool, struct strbuf *b);
/* The same for the host h describes (the unit suite's fixed one). */
struct spec_host;
void twin_text_on(const struct lab_config *cfg, const struct lab_setup *setup, enum twin_tool tool,
                  const struct spec_host *h, struct strbuf *b);

#endif
