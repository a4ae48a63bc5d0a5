"""The LLM layer: one interface (`Model.complete`) over litellm, the built-in local model and scripts.

Files: `base.py` (Model, LLMResponse, caching/logging/usage), `choose.py` (get_model), `litellm_model.py`
(real providers, retries), `local.py` (offline Gemma 3 270M), `engine.py` (its llama.cpp runtime), `template.py`
(which of its template lines can run on the env), `example_choice.py` (its other template: the closest shipped
example reward, adapted), `reset_gates.py` (whether an example's height gates hold at this robot's reset pose),
`code_identity.py` (when two rewards are the same program), `scripted.py` (JSONL scripts),
`cache.py` (response cache), `log.py` (per-call JSON log).
"""

from rewardsmith.llm.base import ROLES, LLMResponse, Model
from rewardsmith.llm.choose import default_model_name, get_model

__all__ = ["ROLES", "LLMResponse", "Model", "default_model_name", "get_model"]
