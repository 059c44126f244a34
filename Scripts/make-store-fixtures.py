#!/usr/bin/env python3
"""Regenerates the ENStore test fixtures (Tests/ENTestSupport/Fixtures/store/) with the sqlite3 CLI.

Run from the repository root: python3 Scripts/make-store-fixtures.py

store-v1.sqlite     a store written by schema v1 (the DDL is copied verbatim from FrameworkSchema.migrateV1)
store-v2.sqlite     a store written by schemas v1 and v2 (FrameworkSchema.migrateV2, verbatim), with key-server rows
store-v3.sqlite     the v2 store after schema v3 (FrameworkSchema.migrateV3: both groups of tables hold rows, so all
                    five are renamed legacy_*; the manager_state DDL verbatim), with a manager state set
store-v4.sqlite     the v3 store after schema v4 (FrameworkSchema.migrateV4, verbatim), with one cached key file
store-newer.sqlite  the v1 file after a migration this build does not know ("v3-from-the-future")
foreign.sqlite      a valid SQLite database that is not a store
interrupted.sqlite  a first open killed after GRDB created its migrations table, before schema v1 committed
"""
import os, re, struct, subprocess

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
src = open(os.path.join(root, 'Sources/ENStore/FrameworkSchema.swift')).read()
os.chdir(os.path.join(root, 'Tests/ENTestSupport/Fixtures/store'))
v1 = re.search(r'static func migrateV1.*?sql: """\n(.*?)"""', src, re.S).group(1)
v2 = re.search(r'static func migrateV2.*?sql: """\n(.*?)"""', src, re.S).group(1)
v3 = re.search(r'static func migrateV3.*?(CREATE TABLE manager_state.*?)"""', src, re.S).group(1)
v4 = re.search(r'static func migrateV4.*?sql: """\n(.*?)"""', src, re.S).group(1)
ref = 800000000.0  # a Date's timeIntervalSinceReferenceDate: 2026-05-09 06:13:20 UTC
interval = int((ref + 978307200) // 600)
start = (interval // 144) * 144
payload = bytes(range(16)).hex() + 'a0a1a2a3' + 'c4' + '03' + struct.pack('<d', ref + 12.5).hex()
lines = [
    "-- A store written by schema v1 (StoreSchema.migrateV1, copied verbatim), with one row per table.",
    "-- Regenerate with Scripts/make-store-fixtures.py.",
    "CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);",
    "INSERT INTO grdb_migrations VALUES ('v1');",
    v1.replace('\n                ', '\n').strip(),
    f"INSERT INTO store_metadata (id, created_at, encrypted, canary) VALUES (1, {ref}, 0, NULL);",
    f"INSERT INTO own_keys VALUES ({start}, 144, x'{'11' * 16}', {ref});",
    f"INSERT INTO sightings (interval, payload) VALUES ({interval}, x'{payload}');",
    f"UPDATE state SET is_onboarded = 1, next_key_file_index = 3, last_detection_date = {ref + 60}, last_detection_error = NULL;",
    f"INSERT INTO detections (computed_at, kind, result) VALUES ({ref + 60}, 'v2', '{{\"matchedKeyCount\":1,\"maximumScore\":1800}}');",
    f"INSERT INTO processed_key_files VALUES (x'{'ab' * 32}', {ref + 60}, 1);",
    f"INSERT INTO cached_keys VALUES (x'{'22' * 16}', {start - 144}, 144, 4, 1, -2, 0, {ref + 60});",
    f"INSERT INTO test_results VALUES ('6F1C2E4A-0B7D-4C4B-9C55-0A4C7C2D9E10', {ref - 86400}, 1, 1);",
    f"INSERT INTO exposures (date, duration, total_risk_score, transmission_risk_level) VALUES ({ref - 3 * 86400}, 900, 42, 5);",
]
sql = "\n".join(lines) + "\n"
open('store-v1.sql', 'w').write(sql)
# Schema v2 on top (it seeds the ledger from the v1 detection), then one published batch and one waiting key.
v2_lines = [
    "-- The same store after schema v2 (FrameworkSchema.migrateV2, copied verbatim), with key-server rows.",
    "INSERT INTO grdb_migrations VALUES ('v2');",
    v2.replace('\n                ', '\n').strip(),
    f"INSERT INTO server_batches VALUES (0, {ref + 120});",
    f"INSERT INTO server_keys (key_data, rolling_start, rolling_period, transmission_risk_level, report_type, days_since_onset, variant, received_at, batch_index) VALUES (x'{'33' * 16}', {start - 288}, 144, 2, 1, NULL, 0, {ref + 100}, 0);",
    f"INSERT INTO server_keys (key_data, rolling_start, rolling_period, transmission_risk_level, report_type, days_since_onset, variant, received_at, batch_index) VALUES (x'{'44' * 16}', {start - 144}, 144, 3, 2, 1, 0, {ref + 130}, NULL);",
]
sql_v2 = sql + "\n".join(v2_lines) + "\n"
open('store-v2.sql', 'w').write(sql_v2)
# Schema v3 on top: the branch of migrateV3 taken when the app's and the key server's tables hold rows (they do).
v3_lines = [
    "-- The same store after schema v3 (FrameworkSchema.migrateV3: every group holds rows, so it is renamed).",
    "INSERT INTO grdb_migrations VALUES ('v3');",
] + [f"ALTER TABLE {table} RENAME TO legacy_{table};"
     for table in ['state', 'test_results', 'exposures', 'server_keys', 'server_batches']] + [
    v3.replace('\n                ', '\n').strip(),
    f"UPDATE manager_state SET exposure_notification_enabled = 1, authorization_status = 3, preauthorized_at = {ref + 30};",
]
sql_v3 = sql_v2 + "\n".join(v3_lines) + "\n"
open('store-v3.sql', 'w').write(sql_v3)
# Schema v4 on top: cached keys dropped, one cached key file (an export.bin header and a few bytes).
v4_lines = [
    "-- The same store after schema v4 (FrameworkSchema.migrateV4, copied verbatim), with one cached key file.",
    "INSERT INTO grdb_migrations VALUES ('v4');",
    v4.replace('\n                ', '\n').strip(),
    f"INSERT INTO cached_key_files (hash, export_binary, cached_at) VALUES (x'{'5d' * 32}', x'{b'EK Export v1    '.hex()}0a0333313012', {ref + 60});",
]
sql_v4 = sql_v3 + "\n".join(v4_lines) + "\n"
open('store-v4.sql', 'w').write(sql_v4)
for name in ['store-v1.sqlite', 'store-v2.sqlite', 'store-v3.sqlite', 'store-v4.sqlite', 'store-newer.sqlite', 'foreign.sqlite',
             'interrupted.sqlite']:
    if os.path.exists(name):
        os.remove(name)
subprocess.run(['sqlite3', 'store-v1.sqlite'], input=sql, text=True, check=True)
subprocess.run(['sqlite3', 'store-v2.sqlite'], input=sql_v2, text=True, check=True)
subprocess.run(['sqlite3', 'store-v3.sqlite'], input=sql_v3, text=True, check=True)
subprocess.run(['sqlite3', 'store-v4.sqlite'], input=sql_v4, text=True, check=True)
subprocess.run(['sqlite3', 'store-newer.sqlite'],
               input=sql + "INSERT INTO grdb_migrations VALUES ('v2'), ('v3-from-the-future');\n", text=True, check=True)
subprocess.run(['sqlite3', 'foreign.sqlite'],
               input="CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes (body) VALUES ('not a store');\n",
               text=True, check=True)
subprocess.run(['sqlite3', 'interrupted.sqlite'],
               input="CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);\n", text=True, check=True)
