"""rewardsmith: an LLM writes reward functions; rewardsmith checks, sandboxes, trains and refines them."""

__version__ = "0.1.0"


def __getattr__(name: str):
    """Lazy public API, so `import rewardsmith` stays light: `rewardsmith.RewardWrapper`."""
    if name == "RewardWrapper":
        from rewardsmith.reward.wrappers import RewardWrapper

        return RewardWrapper
    raise AttributeError(f"module 'rewardsmith' has no attribute {name!r}")
