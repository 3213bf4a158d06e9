// aimon-mongo: collections and indexes of the MongoDB session stores.
//
// Idempotent: creates a collection only when it is missing and an index only when no index of that name
// exists (createIndexes of an identical index is a no-op; a different index under the same name fails
// loudly). Every index carries an explicit name. Kept equal to aimon_mongo.mongo.schema (ensure_schema)
// by tests/integration/test_init_js.py.
//
// Usage (database "aimon_session" by default):
//   mongosh "mongodb://host:27017" --file db/mongodb/init.js
//   mongosh "mongodb://host:27017" --eval 'var dbName = "other_db"' --file db/mongodb/init.js
//
// Only runCommand forms are used (listCollections / create / createIndexes): they work on every server
// and stand-in, where the shell's cursor helpers may not.

const targetName = typeof dbName === "string" && dbName.length > 0 ? dbName : "aimon_session";
const target = db.getSiblingDB(targetName);

function check(reply, what) {
  if (!reply || reply.ok !== 1) {
    throw new Error(what + " failed: " + JSON.stringify(reply));
  }
  return reply;
}

function existingCollections() {
  const reply = check(target.runCommand({ listCollections: 1, nameOnly: true, cursor: { batchSize: 10000 } }), "listCollections");
  return new Set(reply.cursor.firstBatch.map((c) => c.name));
}

const existing = existingCollections();

function ensureCollection(name, options) {
  if (existing.has(name)) {
    return;
  }
  const reply = target.runCommand(Object.assign({ create: name }, options || {}));
  if (reply.ok !== 1 && reply.code !== 48) { // 48: NamespaceExists (created concurrently)
    check(reply, "create " + name);
  }
  existing.add(name);
  print("created collection " + targetName + "." + name);
}

function ensureIndex(collection, keys, options) {
  check(target.runCommand({ createIndexes: collection, indexes: [Object.assign({ key: keys }, options)] }),
    "createIndexes " + collection + "." + options.name);
}

// Leases ("the lock"). Never a TTL index here: the fencing-token counter lives in these documents.
ensureCollection("conversation_locks");

// Inbox, and the quarantine of entries that could not be decoded.
ensureCollection("conversation_inbox");
ensureIndex("conversation_inbox", { conversationId: 1, priority: 1, deliveredAt: 1 }, { name: "by_conv_priority_fifo" });
ensureCollection("conversation_inbox_quarantine");
ensureIndex("conversation_inbox_quarantine", { conversationId: 1, quarantinedAt: 1 }, { name: "by_conv_quarantined_at" });

// Idempotency entries: expiresAt drives the TTL monitor; status + lastTouchedAt serve the stale scan.
ensureCollection("idempotency_entries");
ensureIndex("idempotency_entries", { expiresAt: 1 }, { name: "ttl_expires_at", expireAfterSeconds: 0 });
ensureIndex("idempotency_entries", { status: 1, lastTouchedAt: 1 }, { name: "by_status_touch" });

// Signals between nodes: capped, no retention job needed.
ensureCollection("conversation_signals", { capped: true, size: 64 * 1024 * 1024 });

// Background tasks.
ensureCollection("background_task");
ensureIndex("background_task", { state: 1 }, { name: "by_state" });
ensureIndex("background_task", { contextId: 1 }, { name: "by_context" });

// Scheduled-task interrupts (scheduling, not session state): capped.
ensureCollection("scheduled_task_interrupts", { capped: true, size: 1024 * 1024 });

// Session records, log segments, and the per-session fence of fenced writes.
ensureCollection("session_records");
ensureCollection("session_log_segments");
ensureIndex("session_log_segments", { sessionId: 1 }, { name: "by_session" });
ensureCollection("session_fences");

// LangGraph checkpoint saver (aimon_mongo.langgraph): checkpoints with their pending writes and the values
// they introduced, per-thread fences and retention, and the GridFS bucket of large values.
ensureCollection("langgraph_checkpoints");
ensureIndex("langgraph_checkpoints", { thread_id: 1, checkpoint_ns: 1, checkpoint_id: -1 }, { name: "by_thread_ns_checkpoint" });
ensureIndex("langgraph_checkpoints", { thread_id: 1, checkpoint_ns: 1, "values.key": 1 }, { name: "by_thread_ns_value_key" });
ensureIndex("langgraph_checkpoints", { run_id: 1 }, { name: "by_run_id", partialFilterExpression: { run_id: { $exists: true } } });
ensureCollection("langgraph_threads");
ensureIndex("langgraph_threads", { expires_at: 1 }, { name: "by_expires_at" });
ensureIndex("langgraph_threads", { purge_at: 1 }, { name: "ttl_purge_at", expireAfterSeconds: 0 });
ensureCollection("langgraph_values.files");
ensureIndex("langgraph_values.files", { "metadata.thread_id": 1 }, { name: "by_thread" });
ensureCollection("langgraph_values.chunks");
ensureIndex("langgraph_values.chunks", { files_id: 1, n: 1 }, { name: "files_id_1_n_1", unique: true });

// Change streams (the signal bus's low-latency path) need a replica set; a single node is enough.
const hello = target.adminCommand({ hello: 1 });
if (!hello.setName && hello.msg !== "isdbgrid") {
  print("WARNING: this server is not a replica set: the signal bus falls back to polling. " +
    "For change streams run it as a replica set (a single node is enough: rs.initiate()).");
}
print("aimon-mongo schema ready in database " + targetName);
