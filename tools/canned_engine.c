/* A zero-work SEI engine in C for benchmarks (the same protocol as canned_engine.py).
 *
 * canned_engine SCRIPT: SCRIPT holds one legal game as canonical STN turns separated by
 * whitespace.  At "go" it answers the turn whose index is the number of moves in the last
 * "position" command, so both seats of any game follow the script.  Costs microseconds per
 * turn, so what a benchmark measures is the referee.  Build: cc -O2 -o canned_engine canned_engine.c
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TURNS 512
#define LINE 65536

int main(int argc, char **argv) {
    static char script[LINE], line[LINE];
    char *turns[MAX_TURNS];
    int n = 0, moves = 0;
    if (argc < 2) return 2;
    FILE *f = fopen(argv[1], "r");
    if (!f) return 2;
    size_t len = fread(script, 1, sizeof script - 1, f);
    fclose(f);
    script[len] = 0;
    for (char *t = strtok(script, " \t\r\n"); t && n < MAX_TURNS; t = strtok(NULL, " \t\r\n")) turns[n++] = t;
    while (fgets(line, sizeof line, stdin)) {
        if (!strncmp(line, "position", 8)) {
            char *m = strstr(line, " moves ");
            moves = 0;
            if (m) for (char *p = m + 6; *p; p++) if (*p == ' ' && p[1] && p[1] != '\n') moves++;
        } else if (!strncmp(line, "go", 2)) {
            printf("bestmove %s\n", moves < n ? turns[moves] : "resign");
            fflush(stdout);
        } else if (!strncmp(line, "isready", 7)) {
            fputs("readyok\n", stdout);
            fflush(stdout);
        } else if (!strncmp(line, "sei", 3)) {
            fputs("id name canned-c\nseiok 1\n", stdout);
            fflush(stdout);
        } else if (!strncmp(line, "quit", 4)) {
            break;
        }
    }
    return 0;
}
