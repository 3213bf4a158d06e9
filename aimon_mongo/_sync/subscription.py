# GENERATED from aimon_mongo/_async/subscription.py by scripts/gen_sync.py; do not edit.
"""The subscription handle of a signal bus that keeps its node's subscribers in a :class:`SignalHub`."""

from __future__ import annotations

from aimon_mongo.signal_hub import SignalHub


class HubSubscription:
    """Handle of one ``subscribe`` call: ``unsubscribe`` removes that registration from the hub."""

    def __init__(self, hub: SignalHub, session_id: str, sub_id: int) -> None:
        self._hub = hub
        self._session_id = session_id
        self._sub_id = sub_id

    def unsubscribe(self) -> None:
        """Stop delivering to this handler. Idempotent."""
        self._hub.remove(self._session_id, self._sub_id)
