"""Training configs, one YAML per game and trainer; installed as ``spyenvs.configs`` so
``spyenvs train`` finds them outside the checkout."""
