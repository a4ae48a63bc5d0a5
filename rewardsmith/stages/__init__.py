"""The stages of one iteration, each a parent-side step that runs generated code only through `workers`.

- `prompts/`: the Jinja2 templates (package data) and their one renderer.
- `env_description`: the environment description the LLM sees (Text2Reward style).
- `designer`, `extract`: prompting the LLM for reward files and pulling the code out of its replies.
- `critic`: static, dynamic (sandboxed smoke run) and semantic (LLM review) checks.
- `screen`: CARD's trajectory preference check on archived episodes, before any RL.
- `analyzer`: what a trained policy did, as statistics and feedback for the designer.
- `video`: policy videos, rendered in a worker and encoded here.
"""
