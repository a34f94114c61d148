"""The protocol itself: the JSON-RPC session, the client and its operations, both eras,
multi round-trip requests, tasks, subscriptions, caching hints, errors and the item views."""
