"""The identity room: accounts, their sessions and passkeys, and names nobody can imitate.

`router` (routes.py) serves the API and the pages; `CurrentAccount` (deps.py) is how any
route learns who is signed in; `Accounts` (accounts.py) is the service the routes and the
`cantstop admin` commands share.
"""
