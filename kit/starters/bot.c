/* A starter bot for Arbiter (game: __GAME__), in C.
 *
 * It speaks the protocol (docs/bots.md): one JSON object per line on stdin,
 * one answer per line on stdout, flushed at once.  Debug output goes to stderr.
 * It plays a random legal move; make it stronger in choose_move.
 *
 * The JSON reading here is just enough for the protocol: it finds the
 * top-level fields of a message and the strings of "legal_moves".  The
 * observation is handed to choose_move as raw JSON text; parse what you need.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Skips whitespace. */
static const char *skip_ws(const char *p) {
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') p++;
    return p;
}

/* Skips one JSON string starting at its opening quote; returns the position after the closing quote. */
static const char *skip_string(const char *p) {
    for (p++; *p && *p != '"'; p++)
        if (*p == '\\' && p[1]) p++;
    return *p ? p + 1 : p;
}

/* Skips one JSON value of any kind; returns the position after it. */
static const char *skip_value(const char *p) {
    p = skip_ws(p);
    if (*p == '"') return skip_string(p);
    if (*p == '{' || *p == '[') {
        int depth = 0;
        for (; *p; p++) {
            if (*p == '"') { p = skip_string(p) - 1; continue; }
            if (*p == '{' || *p == '[') depth++;
            if (*p == '}' || *p == ']') { if (--depth == 0) return p + 1; }
        }
        return p;
    }
    while (*p && *p != ',' && *p != '}' && *p != ']') p++;
    return p;
}

/* The value of a top-level field of an object (its raw JSON text starts there), or NULL. */
static const char *field(const char *obj, const char *name) {
    size_t len = strlen(name);
    const char *p = skip_ws(obj);
    if (*p != '{') return NULL;
    p = skip_ws(p + 1);
    while (*p == '"') {
        const char *key = p + 1, *end = skip_string(p);
        p = skip_ws(end);
        if (*p != ':') return NULL;
        p = skip_ws(p + 1);
        if ((size_t)(end - 1 - key) == len && strncmp(key, name, len) == 0) return p;
        p = skip_ws(skip_value(p));
        if (*p == ',') p = skip_ws(p + 1);
    }
    return NULL;
}

/* True when the field holds exactly the given JSON string. */
static int field_is(const char *obj, const char *name, const char *quoted) {
    const char *v = field(obj, name);
    return v && strncmp(v, quoted, strlen(quoted)) == 0;
}

static uint64_t rng_state = 88172645463325252ULL;

/* A small seeded generator (xorshift), so the same match replays the same way. */
static uint64_t next_random(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* Chooses the move: `moves` holds `count` moves as raw JSON strings (quotes included, escapes kept),
 * `observation` the raw JSON text of what your seat may see (see the game's rules page).
 * Add your search here.  Returns the index of the chosen move. */
static size_t choose_move(const char *observation, const char **moves, size_t count, long seat) {
    (void)observation;
    (void)moves;
    (void)seat;
    return (size_t)(next_random() % count);
}

/* Answers one turn: collects the legal moves and writes {"move": ...}. */
static void answer_turn(const char *msg, long seat) {
    const char *list = field(msg, "legal_moves");
    const char *obs = field(msg, "observation");
    size_t count = 0, cap = 64;
    const char **moves = malloc(cap * sizeof *moves);
    const char *p = list ? skip_ws(list + 1) : "";
    while (*p == '"') {
        if (count == cap) moves = realloc(moves, (cap *= 2) * sizeof *moves);
        moves[count++] = p;
        p = skip_ws(skip_string(p));
        if (*p == ',') p = skip_ws(p + 1);
    }
    if (count == 0) { fprintf(stderr, "no legal moves in the turn\n"); free(moves); return; }
    const char *move = moves[choose_move(obs ? obs : "null", moves, count, seat)];
    /* The move is echoed as the JSON string it came in, so no escaping is needed. */
    printf("{\"move\": %.*s}\n", (int)(skip_string(move) - move), move);
    fflush(stdout);
    free(moves);
}

int main(void) {
    char *line = NULL;
    size_t size = 0;
    long seat = 0;
    while (getline(&line, &size, stdin) != -1) {
        if (field_is(line, "type", "\"start\"")) {
            const char *s = field(line, "seat");
            const char *m = field(line, "match");
            seat = s ? strtol(s, NULL, 10) : 0;
            for (const char *c = m ? m + 1 : ""; *c && *c != '"'; c++) rng_state = (rng_state ^ (uint64_t)*c) * 1099511628211ULL;
            rng_state ^= (uint64_t)seat + 1;
            if (rng_state == 0) rng_state = 1;
            printf("{\"type\": \"ready\", \"name\": \"__NAME__\", \"version\": \"1\"}\n");
            fflush(stdout);
        } else if (field_is(line, "type", "\"turn\"")) {
            answer_turn(line, seat);
        } else if (field_is(line, "type", "\"end\"")) {
            break;
        }
    }
    free(line);
    return 0;
}
