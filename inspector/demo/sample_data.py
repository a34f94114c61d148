"""The made-up data the demo serves: users, a small file tree, cities and their weather.

Shared by the resource templates, the completion handler, the prompts and the weather tool, so a
completion always suggests something that then actually resolves.
"""

from __future__ import annotations

import hashlib
from typing import Any

USERS: dict[str, dict[str, Any]] = {
    "ada": {"name": "Ada Lovelace", "born": 1815, "known_for": "the first published algorithm", "city": "London"},
    "alan": {"name": "Alan Turing", "born": 1912, "known_for": "computability and the Turing test", "city": "London"},
    "emilie": {
        "name": "Émilie du Châtelet",
        "born": 1706,
        "known_for": "translating Newton's Principia",
        "city": "Paris",
    },
    "grace": {"name": "Grace Hopper", "born": 1906, "known_for": "the first compiler", "city": "New York"},
    "katherine": {
        "name": "Katherine Johnson",
        "born": 1918,
        "known_for": "orbital mechanics at NASA",
        "city": "Hampton",
    },
    "linus": {"name": "Linus Torvalds", "born": 1969, "known_for": "Linux and Git", "city": "Portland"},
    "margaret": {"name": "Margaret Hamilton", "born": 1936, "known_for": "Apollo flight software", "city": "Boston"},
    "sofia": {
        "name": "Sofia Kovalevskaya",
        "born": 1850,
        "known_for": "partial differential equations",
        "city": "Stockholm",
    },
    "yukihiro": {"name": "まつもと ゆきひろ (Yukihiro Matsumoto)", "born": 1965, "known_for": "Ruby", "city": "Matsue"},
}

FILES: dict[str, str] = {
    "README.md": "# Sample project\n\nA tiny tree served by `demo://files/{+path}`.\n",
    "src/app.py": 'from utils.text import shout\n\nprint(shout("hello"))\n',
    "src/utils/text.py": 'def shout(text: str) -> str:\n    return text.upper() + "!"\n',
    "src/utils/__init__.py": "",
    "docs/guide.md": "# Guide\n\n1. Open a resource.\n2. Subscribe to it.\n3. Watch it change.\n",
    "docs/faq.md": "# FAQ\n\n**Is any of this real?** No, every file is made up.\n",
    "data/cities.csv": "city,country\nParis,FR\nKyōto,JP\nSão Paulo,BR\nReykjavík,IS\n",
}

CITIES: dict[str, str] = {
    "Amsterdam": "NL",
    "Berlin": "DE",
    "Kyōto": "JP",
    "Lisbon": "PT",
    "London": "GB",
    "Lyon": "FR",
    "Marseille": "FR",
    "Paris": "FR",
    "Reykjavík": "IS",
    "São Paulo": "BR",
    "Tokyo": "JP",
    "Zürich": "CH",
}

CONDITIONS = ("sunny", "partly cloudy", "overcast", "light rain", "thunderstorms", "snow", "fog")


def weather_for(city: str, units: str = "metric") -> dict[str, Any]:
    """Deterministic pretend weather: the same city always gets the same forecast."""
    seed = hashlib.sha256(city.casefold().encode()).digest()
    celsius = [(seed[i] % 35) - 5 for i in range(4)]
    temperatures = celsius if units == "metric" else [round(c * 9 / 5 + 32) for c in celsius]
    return {
        "city": city,
        "country": CITIES.get(city),
        "units": units,
        "current": {
            "temperature": temperatures[0],
            "conditions": CONDITIONS[seed[5] % len(CONDITIONS)],
            "humidity_percent": 30 + seed[6] % 60,
            "wind": {"speed": seed[7] % 40, "direction": ["N", "NE", "E", "SE", "S", "SW", "W", "NW"][seed[8] % 8]},
        },
        "forecast": [
            {
                "day": offset,
                "high": temperatures[offset],
                "low": temperatures[offset] - 6,
                "conditions": CONDITIONS[seed[9 + offset] % len(CONDITIONS)],
            }
            for offset in (1, 2, 3)
        ],
    }


def starting_with(candidates: list[str], prefix: str, limit: int = 100) -> tuple[list[str], int]:
    """Case-insensitive prefix matches, capped at the protocol's 100 values; also the full count."""
    folded = prefix.casefold()
    matches = [c for c in candidates if c.casefold().startswith(folded)]
    return matches[:limit], len(matches)
