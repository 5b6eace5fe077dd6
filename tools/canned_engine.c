/* A zero-work engine in C for benchmarks: SEI (the same protocol as canned_engine.py) or UCI.
 *
 * canned_engine SCRIPT: SCRIPT holds one legal game as turns separated by whitespace (canonical
 * STN for Santorini, UCI moves for chess).  At "go" it answers the turn whose index is the
 * number of moves in the last "position" command, so both seats of any game follow the script.
 * It answers "sei" as a SEI engine and "uci" as a UCI one, so one program plays for the referee
 * and for fastchess (tools/bench_fastchess.py): the engines' side of both runs is the same code.
 * Costs microseconds per turn, so what a benchmark measures is the runner.  When the
 * environment names CANNED_CPU_LOG, it appends its own CPU time (user + system, microseconds)
 * to that file as one line when it exits, so a benchmark can take the engines' CPU out of a
 * process tree's.  Build: cc -O2 -o canned_engine canned_engine.c
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#define MAX_TURNS 512
#define LINE 65536

static void log_cpu(void) {
    const char *path = getenv("CANNED_CPU_LOG");
    struct rusage ru;
    if (!path || getrusage(RUSAGE_SELF, &ru)) return;
    FILE *log = fopen(path, "a");
    if (!log) return;
    long long us = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000LL + ru.ru_utime.tv_usec + ru.ru_stime.tv_usec;
    fprintf(log, "%lld\n", us);
    fclose(log);
}

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
    atexit(log_cpu);
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
        } else if (!strncmp(line, "uci", 3) && (line[3] == '\n' || line[3] == '\r' || line[3] == 0)) {
            fputs("id name canned-c\nid author santorini-server tools\nuciok\n", stdout);  /* not ucinewgame */
            fflush(stdout);
        } else if (!strncmp(line, "quit", 4)) {
            break;
        }
    }
    return 0;
}
