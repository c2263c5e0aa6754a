"""Spy Games ("Игры шпионов", 2017 prototype): hidden spies, confrontations with a
referee and structured negotiation, for 2-4 players (rules/spy_games.md)."""
