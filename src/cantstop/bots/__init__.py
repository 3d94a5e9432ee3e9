"""Computer players. A bot is a function of a state, a random source and a budget.

Bots keep no hidden state between calls, so a match can run them in many
processes and a search can clone positions freely. The registry lists them by
name, with a one-line description and a difficulty level for menus.
"""

from cantstop.bots.base import Bot, BotInfo, Budget, Level, bot_names, get_bot, register

__all__ = ["Bot", "BotInfo", "Budget", "Level", "bot_names", "get_bot", "register"]
