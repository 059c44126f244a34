/*
 * SQLite's own ceiling for the publish's write: THREADS threads, each with its own connection to DATABASE (a
 * key-server store that `enserver` created, so the schema is the same), each running for SECONDS transactions of 14
 * `INSERT ... ON CONFLICT (key_data) DO NOTHING` of new random keys into key_server_keys, WAL, synchronous as
 * given (FULL or NORMAL), secure_delete on as the store has it. One writer at a time, as in `enserver` (a mutex in
 * the process, so no busy-waiting). Prints one JSON line: transactions, seconds, transactions per second, p50/p99.
 *
 *   cc -O2 -o sqlite-ceiling Scripts/load/sqlite-ceiling.c -lsqlite3 -lpthread
 *   sqlite-ceiling DATABASE THREADS SECONDS FULL|NORMAL
 */
#include <pthread.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *path;
static const char *synchronous;
static double seconds;
static pthread_mutex_t writer = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t tally = PTHREAD_MUTEX_INITIALIZER;
static long total;
static double *latencies;
static long latencyCount, latencyCapacity;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static void check(int rc, sqlite3 *db, const char *what) {
    if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW) {
        fprintf(stderr, "sqlite-ceiling: %s: %s\n", what, db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
        exit(1);
    }
}

static void *run(void *arg) {
    unsigned seed = (unsigned)(uintptr_t)arg * 7919u + (unsigned)time(NULL);
    sqlite3 *db;
    check(sqlite3_open(path, &db), NULL, "open");
    sqlite3_busy_timeout(db, 10000);
    char pragmas[200];
    snprintf(pragmas, sizeof pragmas, "PRAGMA journal_mode = WAL; PRAGMA synchronous = %s; PRAGMA secure_delete = ON;",
             synchronous);
    check(sqlite3_exec(db, pragmas, NULL, NULL, NULL), db, "pragmas");
    sqlite3_stmt *insert, *begin, *commit;
    check(sqlite3_prepare_v2(db,
                             "INSERT INTO key_server_keys (key_data, rolling_start, rolling_period, "
                             "transmission_risk_level, report_type, days_since_onset, variant, received_at) "
                             "VALUES (?, ?, 144, 3, 1, NULL, 1, ?) ON CONFLICT (key_data) DO NOTHING",
                             -1, &insert, NULL), db, "prepare insert");
    check(sqlite3_prepare_v2(db, "BEGIN IMMEDIATE", -1, &begin, NULL), db, "prepare begin");
    check(sqlite3_prepare_v2(db, "COMMIT", -1, &commit, NULL), db, "prepare commit");
    long today = (long)(time(NULL) / 600 / 144 * 144);
    double end = now() + seconds;
    long count = 0;
    double local[1 << 16];
    long localCount = 0;
    while (now() < end) {
        double start = now();
        pthread_mutex_lock(&writer);
        check(sqlite3_step(begin), db, "begin");
        sqlite3_reset(begin);
        for (int day = 1; day <= 14; day++) {
            unsigned char key[16];
            for (int i = 0; i < 16; i++) key[i] = (unsigned char)rand_r(&seed);
            sqlite3_bind_blob(insert, 1, key, 16, SQLITE_TRANSIENT);
            sqlite3_bind_int64(insert, 2, today - 144 * day);
            sqlite3_bind_double(insert, 3, (double)time(NULL));
            check(sqlite3_step(insert), db, "insert");
            sqlite3_reset(insert);
        }
        check(sqlite3_step(commit), db, "commit");
        sqlite3_reset(commit);
        pthread_mutex_unlock(&writer);
        if (localCount < (1 << 16)) local[localCount++] = now() - start;
        count++;
    }
    pthread_mutex_lock(&tally);
    total += count;
    if (latencyCount + localCount > latencyCapacity) {
        latencyCapacity = (latencyCount + localCount) * 2;
        latencies = realloc(latencies, latencyCapacity * sizeof(double));
    }
    memcpy(latencies + latencyCount, local, localCount * sizeof(double));
    latencyCount += localCount;
    pthread_mutex_unlock(&tally);
    sqlite3_finalize(insert);
    sqlite3_finalize(begin);
    sqlite3_finalize(commit);
    sqlite3_close(db);
    return NULL;
}

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: sqlite-ceiling DATABASE THREADS SECONDS FULL|NORMAL\n");
        return 2;
    }
    path = argv[1];
    int threads = atoi(argv[2]);
    seconds = atof(argv[3]);
    synchronous = argv[4];
    if (threads < 1 || seconds <= 0 || (strcmp(synchronous, "FULL") && strcmp(synchronous, "NORMAL"))) {
        fprintf(stderr, "sqlite-ceiling: THREADS >= 1, SECONDS > 0, FULL or NORMAL\n");
        return 2;
    }
    pthread_t *ids = calloc(threads, sizeof(pthread_t));
    double start = now();
    for (int i = 0; i < threads; i++) pthread_create(&ids[i], NULL, run, (void *)(uintptr_t)(i + 1));
    for (int i = 0; i < threads; i++) pthread_join(ids[i], NULL);
    double elapsed = now() - start;
    qsort(latencies, latencyCount, sizeof(double), compare);
    double p50 = latencyCount ? latencies[latencyCount / 2] : 0, p99 = latencyCount ? latencies[latencyCount * 99 / 100] : 0;
    printf("{\"transactions\": %ld, \"seconds\": %.2f, \"rps\": %.1f, \"p50_ms\": %.2f, \"p99_ms\": %.2f}\n", total,
           elapsed, total / elapsed, p50 * 1000, p99 * 1000);
    return 0;
}
