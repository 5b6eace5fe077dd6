/*
 * greedy.c: a complete SEI engine for the base game of Santorini, in plain C.
 *
 * It shows engine authors that the referee needs nothing but a program that reads lines on
 * stdin and writes lines on stdout (SPEC.md section 4; docs/engine-authors.md walks through it).
 * It plays greedily, one turn deep: win if it can; never leave the opponent a win in one if
 * another turn avoids it; otherwise the turn whose result scores best (higher workers, room to
 * climb, the centre).  Base game only: it sends no `gods` line, so the referee gives it only
 * mortal/mortal games, and it answers any other `newgame` with `error unsupported god`.
 *
 * Build: make          Run: santorini check cmd=./greedy-c
 */
#define _POSIX_C_SOURCE 200809L /* getline */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DOME 4     /* a square's level: 0-3, or 4 for a dome (as SPS writes it) */
#define NONE (-1)  /* no square: a worker not placed yet, a winning turn's missing build */

/* Squares are 0-24, numbered file by file (a1=0, a2=1, ..., e5=24).  This is the order of
 * their names as strings, which is STN's canonical order of squares (SPEC.md section 3). */
typedef struct {
    int level[25];
    int worker[2][2]; /* worker[player][i]: a square, or NONE before the placement */
    int to_move;      /* 0: player 1, 1: player 2 */
} Position;

typedef struct {
    int from, to, build; /* a placement is from=first square, to=second, build=NONE, placing=1 */
    int placing;
} Turn;

static Position pos;
static int have_pos = 0;                /* 0 after a bad `position`: the next go resigns */
static int searching = 0;               /* 1 between `go infinite` and `stop` */
static char held_bestmove[32];          /* the answer kept back until `stop` */

/* --- output: one line at a time, flushed at once ---------------------------------------------
 * Flushing after every line is the first rule of SEI: without it the referee waits for output
 * that sits in our buffer, and the engine loses on time. */
static void say(const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    vprintf(fmt, args);
    va_end(args);
    putchar('\n');
    fflush(stdout);
}

/* --- squares ------------------------------------------------------------------------------- */
static int square(const char *s) { /* "c3" -> 12; NONE if it is not a square name */
    if (s[0] < 'a' || s[0] > 'e' || s[1] < '1' || s[1] > '5') return NONE;
    return (s[0] - 'a') * 5 + (s[1] - '1');
}

static const char *name(int sq) {
    static char names[25][3];
    names[sq][0] = (char)('a' + sq / 5);
    names[sq][1] = (char)('1' + sq % 5);
    return names[sq];
}

static int adjacent(int a, int b) {
    int df = abs(a / 5 - b / 5), dr = abs(a % 5 - b % 5);
    return a != b && df <= 1 && dr <= 1;
}

static int occupied(const Position *p, int sq) {
    for (int pl = 0; pl < 2; pl++)
        for (int i = 0; i < 2; i++)
            if (p->worker[pl][i] == sq) return 1;
    return 0;
}

static int free_square(const Position *p, int sq) { return p->level[sq] != DOME && !occupied(p, sq); }

/* --- rules: every complete turn of the side to move (SPEC.md sections 1.2-1.4) ------------- */
static int legal_turns(const Position *p, Turn *out) {
    int n = 0, me = p->to_move;
    if (p->worker[me][0] == NONE) { /* placement: two empty squares, in canonical order */
        for (int a = 0; a < 25; a++)
            for (int b = a + 1; b < 25; b++)
                if (!occupied(p, a) && !occupied(p, b)) out[n++] = (Turn){a, b, NONE, 1};
        return n;
    }
    for (int i = 0; i < 2; i++) {
        int from = p->worker[me][i];
        for (int to = 0; to < 25; to++) {
            if (!adjacent(from, to) || !free_square(p, to) || p->level[to] > p->level[from] + 1) continue;
            if (p->level[to] == 3 && p->level[from] < 3) { /* moving up onto level 3 wins: no build */
                out[n++] = (Turn){from, to, NONE, 0};
                continue;
            }
            for (int b = 0; b < 25; b++) /* build next to the new square; the old one is free now */
                if (adjacent(to, b) && p->level[b] != DOME && (b == from || !occupied(p, b)))
                    out[n++] = (Turn){from, to, b, 0};
        }
    }
    return n;
}

static int is_win(const Position *p, Turn t) { return !t.placing && t.build == NONE && p->level[t.to] == 3; }

static void play(Position *p, Turn t) {
    int me = p->to_move;
    if (t.placing) {
        p->worker[me][0] = t.from;
        p->worker[me][1] = t.to;
    } else {
        for (int i = 0; i < 2; i++)
            if (p->worker[me][i] == t.from) p->worker[me][i] = t.to;
        if (t.build != NONE) p->level[t.build]++; /* 3 + 1 = 4 = DOME */
    }
    p->to_move = 1 - me;
}

static void format_turn(Turn t, char *buf) {
    if (t.placing) sprintf(buf, "%s,%s", name(t.from), name(t.to));
    else if (t.build == NONE) sprintf(buf, "%s-%s", name(t.from), name(t.to));
    else sprintf(buf, "%s-%s+%s", name(t.from), name(t.to), name(t.build));
}

/* --- notation: SPS positions and STN turns (SPEC.md sections 2 and 3) ----------------------- */
static int parse_turn(const char *s, Turn *t) { /* "b3,d3" or "b3-b4+c5" or "b2-c3" */
    size_t len = strlen(s);
    if (len == 5 && s[2] == ',') *t = (Turn){square(s), square(s + 3), NONE, 1};
    else if (len == 5 && s[2] == '-') *t = (Turn){square(s), square(s + 3), NONE, 0};
    else if (len == 8 && s[2] == '-' && s[5] == '+') *t = (Turn){square(s), square(s + 3), square(s + 6), 0};
    else return 0;
    return t->from != NONE && t->to != NONE && (len != 8 || t->build != NONE);
}

static int parse_side(const char *s, int worker[2]) { /* "-" (not placed) or "b3,d3" */
    if (strcmp(s, "-") == 0) {
        worker[0] = worker[1] = NONE;
        return 1;
    }
    if (strlen(s) != 5 || s[2] != ',') return 0;
    worker[0] = square(s);
    worker[1] = square(s + 3);
    return worker[0] != NONE && worker[1] != NONE;
}

static int parse_sps(char *s, Position *p) { /* "mortal/mortal;BOARD;SIDE/SIDE;TOMOVE;TURN" */
    char *field[5];
    int n = 0;
    field[n++] = s;
    for (char *c = s; *c; c++)
        if (*c == ';') {
            if (n == 5) return 0;
            *c = '\0';
            field[n++] = c + 1;
        }
    if (n != 5 || strcmp(field[0], "mortal/mortal") != 0 || strlen(field[1]) != 29) return 0;
    for (int row = 0; row < 5; row++)     /* rows are rank 5 first, files a to e */
        for (int file = 0; file < 5; file++) {
            char c = field[1][row * 6 + file];
            if (c < '0' || c > '4') return 0;
            p->level[file * 5 + (4 - row)] = c - '0';
        }
    char *slash = strchr(field[2], '/');
    if (!slash) return 0;
    *slash = '\0';
    if (!parse_side(field[2], p->worker[0]) || !parse_side(slash + 1, p->worker[1])) return 0;
    if (strcmp(field[3], "1") != 0 && strcmp(field[3], "2") != 0) return 0;
    p->to_move = field[3][0] - '1';
    return 1;
}

/* --- the greedy choice ---------------------------------------------------------------------- */
static int centre(int sq) { return 4 - abs(sq / 5 - 2) - abs(sq % 5 - 2); } /* c3 = 4, corners = 0 */

static int opponent_wins_next(const Position *p) { /* p: after our turn, the opponent to move */
    Turn turns[600];
    int n = legal_turns(p, turns);
    for (int i = 0; i < n; i++)
        if (is_win(p, turns[i])) return 1;
    return 0;
}

static int worker_value(const Position *p, int sq) {
    static const int height[4] = {0, 40, 120, 0};
    int h = p->level[sq], v = height[h] + 3 * centre(sq);
    for (int n = 0; n < 25; n++)
        if (adjacent(sq, n) && free_square(p, n) && p->level[n] <= h + 1)
            v += (p->level[n] == h + 1) ? 12 : 4; /* room to move, more for a step up */
    return v;
}

static int evaluate(const Position *p, int me) { /* p: after our turn */
    int v = 0;
    for (int i = 0; i < 2; i++)
        v += worker_value(p, p->worker[me][i]) - worker_value(p, p->worker[1 - me][i]);
    return v;
}

/* The turn to play, with its score for the info line; 0 if the side to move has no turn. */
static int choose(const Position *p, Turn *best, int *best_score) {
    Turn turns[600];
    int n = legal_turns(p, turns), me = p->to_move;
    if (n == 0) return 0;
    *best_score = -1000000;
    for (int i = 0; i < n; i++) {
        int score;
        if (is_win(p, turns[i])) {
            *best = turns[i];
            *best_score = 100000;
            return 1;
        }
        Position next = *p;
        play(&next, turns[i]);
        if (turns[i].placing) score = centre(turns[i].from) + centre(turns[i].to);
        else if (opponent_wins_next(&next)) score = -100000 + evaluate(&next, me);
        else score = evaluate(&next, me);
        if (score > *best_score) {
            *best_score = score;
            *best = turns[i];
        }
    }
    return 1;
}

/* --- commands ------------------------------------------------------------------------------- */
static void cmd_position(char *args) { /* "startpos [moves ...]" or "sps <SPS> [moves ...]" */
    char *word = strtok(args, " \t");
    have_pos = 0;
    if (word && strcmp(word, "startpos") == 0) {
        memset(&pos, 0, sizeof pos);
        pos.worker[0][0] = pos.worker[0][1] = pos.worker[1][0] = pos.worker[1][1] = NONE;
    } else if (!(word && strcmp(word, "sps") == 0 && (word = strtok(NULL, " \t")) && parse_sps(word, &pos))) {
        say("error bad position (this engine plays the base game: mortal/mortal)");
        return;
    }
    word = strtok(NULL, " \t");
    if (word && strcmp(word, "moves") == 0)
        while ((word = strtok(NULL, " \t"))) {
            Turn t;
            if (!parse_turn(word, &t)) {
                say("error bad turn '%s' in position", word);
                return;
            }
            play(&pos, t);
        }
    have_pos = 1;
}

static void cmd_go(char *args) {
    int infinite = 0, limits = 0; /* greedy needs no time, but `infinite` changes when to answer */
    for (char *word = strtok(args, " \t"); word; word = strtok(NULL, " \t"))
        if (strcmp(word, "infinite") == 0) infinite = 1;
        else limits++;
    if (limits == 0) infinite = 1; /* no limit at all also means "until stop" (SPEC.md section 4.2) */
    Turn best;
    int score;
    if (!have_pos || !choose(&pos, &best, &score)) {
        strcpy(held_bestmove, "resign");
    } else {
        format_turn(best, held_bestmove);
        if (score == 100000) say("info depth 1 score win 1");
        else say("info depth 1 score cp %d", score);
    }
    if (infinite) searching = 1; /* keep the answer until `stop`: never answer go infinite at once */
    else say("bestmove %s", held_bestmove);
}

static void cmd_newgame(char *args) { /* "gods <g1>/<g2>": only mortal/mortal is ours */
    char *word = strtok(args, " \t");
    char *gods = word ? strtok(NULL, " \t") : NULL;
    if (!word || strcmp(word, "gods") != 0 || !gods) return;
    for (char *god = strtok(gods, "/"); god; god = strtok(NULL, "/"))
        if (strcmp(god, "mortal") != 0) {
            say("error unsupported god %s", god);
            return;
        }
    have_pos = 0;
}

int main(void) {
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    while ((len = getline(&line, &cap, stdin)) != -1) { /* end of input: exit 0, like quit */
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r')) line[--len] = '\0';
        char *rest = line + strspn(line, " \t");
        size_t cmd_len = strcspn(rest, " \t");
        char *args = rest + cmd_len + strspn(rest + cmd_len, " \t");
        if (cmd_len == 0) continue; /* a blank line means nothing */
        rest[cmd_len] = '\0';       /* rest: the command word; args: everything after it */
        if (strcmp(rest, "sei") == 0) {
            say("id name GreedyC");
            say("id author santorini-server examples");
            say("seiok 1");
        } else if (strcmp(rest, "isready") == 0) say("readyok");
        else if (strcmp(rest, "newgame") == 0) cmd_newgame(args);
        else if (strcmp(rest, "position") == 0) cmd_position(args);
        else if (strcmp(rest, "go") == 0) cmd_go(args);
        else if (strcmp(rest, "stop") == 0) {
            if (searching) say("bestmove %s", held_bestmove);
            searching = 0;
        } else if (strcmp(rest, "quit") == 0) break;
        else if (strcmp(rest, "setoption") == 0 || strcmp(rest, "result") == 0 || strcmp(rest, "debug") == 0) {
            /* no options; `result` is only a notice; `debug` changes nothing here */
        } else say("info string unknown command %s%s%s", rest, *args ? " " : "", args);
    }
    free(line);
    return 0;
}
