"""Agents for smear-rl behind one interface, and the arena that plays them against each other."""

from .base import Agent, load_agent

__all__ = ["Agent", "load_agent"]
