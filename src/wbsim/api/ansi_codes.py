"""Webots' ``AnsiCodes``: escape sequences to colour and format console output (Webots' ``ansi_codes.h``)."""

from __future__ import annotations

__all__ = ["AnsiCodes"]


class AnsiCodes:
    """ANSI escape sequences (strings) as Webots' controller library defines them."""

    RESET = "\033[0m"
    BOLD = "\033[1m"
    UNDERLINE = "\033[4m"
    BLACK_BACKGROUND = "\033[40m"
    RED_BACKGROUND = "\033[41m"
    GREEN_BACKGROUND = "\033[42m"
    YELLOW_BACKGROUND = "\033[43m"
    BLUE_BACKGROUND = "\033[44m"
    MAGENTA_BACKGROUND = "\033[45m"
    CYAN_BACKGROUND = "\033[46m"
    WHITE_BACKGROUND = "\033[47m"
    BLACK_FOREGROUND = "\033[30m"
    RED_FOREGROUND = "\033[31m"
    GREEN_FOREGROUND = "\033[32m"
    YELLOW_FOREGROUND = "\033[33m"
    BLUE_FOREGROUND = "\033[34m"
    MAGENTA_FOREGROUND = "\033[35m"
    CYAN_FOREGROUND = "\033[36m"
    WHITE_FOREGROUND = "\033[37m"
    CLEAR_SCREEN = "\033[2J"
