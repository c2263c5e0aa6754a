"""Specter Ops: Shadow of Babel (Plaid Hat, 2015) on the real Facility 83X map:
one hidden A.R.K. agent against 2-4 hunters (a secret traitor with 5 players)."""
