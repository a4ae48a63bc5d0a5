"""rewardsmith: an LLM writes reward functions; rewardsmith checks, sandboxes, trains and refines them."""

__version__ = "0.1.0"
