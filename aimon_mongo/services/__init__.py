"""Policy once: one service per capability, over a driver of the store's atomic primitives.

Each capability (inbox, leases, idempotency, background tasks, session records, log segments, signals)
is one service class in :mod:`aimon_mongo.services._async` (sync twins generated into
``services/_sync``). A service holds everything that is policy — argument checks, codec calls,
decode-and-quarantine, partial-failure handling, logging, the error family and the words of its messages —
and calls a **driver**: a Protocol, declared next to its service, of the primitives one store runs
atomically (a Lua script, one SQL statement, one ``find_one_and_delete``). A backend is its drivers; the
public store classes of each backend (``AsyncMongoSessionInbox`` …) are the service bound to that
backend's driver, so users' code and bundles keep their names and signatures.

Driver calls run inside ``with driver.failures(Family, action):`` (:mod:`aimon_mongo.services.failures`).
"""
