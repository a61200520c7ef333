/* doc: the manual page (roff) and the bash completion script, both generated from the usage
 * texts that `--help` prints, so that neither can drift from the options the commands take.
 *
 * A usage text is read as: the synopsis ("usage: roofcost CMD ..." and the lines up to the
 * first blank one; a line starting "roofcost" is another form), paragraphs of prose, and
 * option lines ("  -s, --system NAME   what it is", continued by deeper-indented lines).
 * Writes to a FILE; no other I/O. */
#ifndef ROOFCOST_DOC_H
#define ROOFCOST_DOC_H

#include <stdio.h>

typedef struct doc_command {
	const char *name;       /* "eval" */
	const char *summary;    /* one line */
	const char *usage;      /* the --help text; NULL: only the summary is known */
} doc_command;

typedef struct doc_program {
	const char *version;    /* "0.1.0" */
	const char *about;      /* one paragraph: what the program is */
	const char *notes;      /* paragraphs after the command list (data, store, exit codes) */
	const doc_command *cmds;
	int ncmds;
	const char *const *formats;  /* values of --format, NULL-terminated */
	const char *const *pricing;  /* values of --pricing, NULL-terminated */
} doc_program;

/* Writes the manual page roofcost(1). */
void doc_man(const doc_program *p, FILE *fp);

/* Writes a bash completion script: commands, each command's options, and for -s, -w,
 * --network and --framework the names `roofcost list` prints. */
void doc_bash_completion(const doc_program *p, FILE *fp);

#endif
