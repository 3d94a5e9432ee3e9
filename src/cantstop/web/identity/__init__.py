"""The identity room: accounts, their sessions and passkeys, the sign-in throttle, webhooks.

`router` (routes.py) serves the API and the pages; `AccountsDep` and `CurrentAccount`
(deps.py) are how any route reaches the room's service and learns who is signed in;
`AccountService` (service.py) does each job; the storage of each concern is a module of
its own (`accounts`, `sessions`, `passkey_store`, `throttle`, `hooks`), which
`cantstop admin` uses too.
"""
