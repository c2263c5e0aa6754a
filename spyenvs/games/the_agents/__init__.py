"""The Agents (Saar Shai, 2013) as a spyenvs game: ``the_agents_v0``."""
