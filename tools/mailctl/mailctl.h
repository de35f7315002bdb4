// mailctl.h: the command groups of mailctl, one entry point each.
#ifndef MAILCTL_H
#define MAILCTL_H

// MAILCTL_USAGE is the exit status of a usage error; 1 means the operation
// failed.
#define MAILCTL_USAGE 2

// mailctl_store_main runs "mailctl store COMMAND ..." with argv[0] the
// command; returns the exit status.
int mailctl_store_main(int argc, char **argv);

#endif // MAILCTL_H
