"""Hand-written input schemas for the form tools.

Generated schemas only ever contain what pydantic happens to emit; these are written out so
each JSON Schema feature an inspector's form builder must handle appears on the wire exactly
once or twice, in a realistic place: formats, numeric and string limits, plain and titled
enums, multi-select, nullable types, defaults, `const`, `oneOf`/`anyOf` variants, nested
objects, arrays of primitives and of objects, and `$ref` into local `$defs`.
"""

from __future__ import annotations

from typing import Any

JSONSchema = dict[str, Any]

PLANS = {"free": "Free — €0", "pro": "Pro — €9 / month", "team": "Team — €29 / month"}
LANGUAGES = {"en": "English", "fr": "Français", "de": "Deutsch", "ja": "日本語", "pt": "Português"}

REGISTER_USER: JSONSchema = {
    "type": "object",
    "title": "New account",
    "description": "Everything a sign-up form could ask for, one field per JSON Schema feature.",
    "properties": {
        "username": {
            "type": "string",
            "title": "Username",
            "description": "3 to 16 lowercase letters, digits or underscores.",
            "minLength": 3,
            "maxLength": 16,
            "pattern": "^[a-z0-9_]+$",
        },
        "password": {
            "type": "string",
            "format": "password",
            "writeOnly": True,
            "title": "Password",
            "description": "At least 8 characters; drawn masked (format: password, writeOnly).",
            "minLength": 8,
        },
        "email": {
            "type": "string",
            "format": "email",
            "title": "E-mail address",
            "description": "Checked as an e-mail address (format: email).",
        },
        "homepage": {
            "type": "string",
            "format": "uri",
            "title": "Homepage",
            "description": "An absolute URL such as https://example.org/~ada.",
        },
        "birthday": {"type": "string", "format": "date", "title": "Birthday", "description": "YYYY-MM-DD"},
        "wake_up_call": {
            "type": "string",
            "format": "date-time",
            "title": "Wake-up call",
            "description": "An RFC 3339 timestamp, e.g. 2030-01-01T07:30:00+01:00.",
        },
        "age": {
            "type": "integer",
            "title": "Age",
            "description": "A whole number from 13 to 130.",
            "minimum": 13,
            "maximum": 130,
        },
        "height_m": {
            "type": "number",
            "title": "Height (m)",
            "description": "Above 0 and at most 3, in steps of 0.01.",
            "exclusiveMinimum": 0,
            "maximum": 3,
            "multipleOf": 0.01,
        },
        "newsletter": {
            "type": "boolean",
            "title": "Send me the newsletter",
            "description": "A boolean with a default.",
            "default": True,
        },
        "role": {
            "type": "string",
            "title": "Role",
            "description": "A plain `enum`.",
            "enum": ["viewer", "editor", "admin"],
            "default": "viewer",
        },
        "plan": {
            "type": "string",
            "title": "Plan",
            "description": "A titled enum: `oneOf` of `{const, title}`.",
            "oneOf": [{"const": value, "title": title} for value, title in PLANS.items()],
            "default": "free",
        },
        "interests": {
            "type": "array",
            "title": "Interests",
            "description": "Multi-select from a plain enum.",
            "items": {"type": "string", "enum": ["music", "sport", "science", "travel", "cooking"]},
            "uniqueItems": True,
            "maxItems": 3,
            "default": ["science"],
        },
        "languages": {
            "type": "array",
            "title": "Languages spoken",
            "description": "Multi-select with titles: items are `anyOf` of `{const, title}`.",
            "items": {"anyOf": [{"const": value, "title": title} for value, title in LANGUAGES.items()]},
            "uniqueItems": True,
            "minItems": 1,
        },
        "nickname": {
            "type": ["string", "null"],
            "title": "Nickname",
            "description": "Nullable via a type list: send null to clear it.",
            "default": None,
        },
        "referred_by": {
            "anyOf": [{"type": "string", "format": "email"}, {"type": "null"}],
            "title": "Referred by",
            "description": "Nullable via `anyOf` with null: a friend's e-mail, or null.",
        },
        "bio": {
            "type": "string",
            "title": "About you",
            "description": "Multi-line text: a few paragraphs are welcome, line breaks are kept.",
            "maxLength": 2000,
        },
    },
    "required": ["username", "email", "age", "plan"],
    "additionalProperties": False,
}

_PLACE: JSONSchema = {
    "type": "object",
    "title": "Place",
    "properties": {
        "city": {"type": "string", "minLength": 1},
        "country": {"type": "string", "pattern": "^[A-Z]{2}$", "description": "ISO 3166-1 alpha-2 code, e.g. FR."},
        "coordinates": {
            "type": "object",
            "title": "Coordinates",
            "properties": {
                "lat": {"type": "number", "minimum": -90, "maximum": 90},
                "lon": {"type": "number", "minimum": -180, "maximum": 180},
            },
            "required": ["lat", "lon"],
        },
    },
    "required": ["city", "country"],
}

PLAN_TRIP: JSONSchema = {
    "type": "object",
    "title": "Trip",
    "$defs": {
        "Place": _PLACE,
        "Stop": {
            "type": "object",
            "title": "Stop",
            "properties": {
                "place": {"$ref": "#/$defs/Place"},
                "nights": {"type": "integer", "minimum": 1, "maximum": 30, "default": 1},
                "activities": {"type": "array", "items": {"type": "string"}, "description": "Free-form list."},
            },
            "required": ["place"],
        },
        "Train": {
            "type": "object",
            "title": "Train",
            "properties": {
                "mode": {"const": "train"},
                "class": {"type": "string", "enum": ["first", "second"], "default": "second"},
                "seat_reservation": {"type": "boolean", "default": True},
            },
            "required": ["mode"],
        },
        "Flight": {
            "type": "object",
            "title": "Flight",
            "properties": {
                "mode": {"const": "flight"},
                "airline": {"type": "string"},
                "checked_bags": {"type": "integer", "minimum": 0, "maximum": 3, "default": 1},
            },
            "required": ["mode", "airline"],
        },
        "Car": {
            "type": "object",
            "title": "Car",
            "properties": {"mode": {"const": "car"}, "electric": {"type": "boolean", "default": False}},
            "required": ["mode"],
        },
    },
    "properties": {
        "schema_version": {
            "type": "integer",
            "const": 1,
            "default": 1,
            "description": "A `const`: the only accepted value is 1.",
        },
        "name": {
            "type": "string",
            "title": "Trip name",
            "description": "A name with a default.",
            "default": "Grand tour",
        },
        "traveller": {
            "type": "object",
            "title": "Traveller",
            "description": "An object nested three deep (traveller › contact › email).",
            "properties": {
                "full_name": {"type": "string", "minLength": 1},
                "home": {"$ref": "#/$defs/Place"},
                "contact": {
                    "type": "object",
                    "title": "Contact",
                    "properties": {
                        "email": {"type": "string", "format": "email"},
                        "phone": {"type": ["string", "null"], "pattern": "^\\+?[0-9 ]{6,20}$"},
                    },
                },
            },
            "required": ["full_name", "home"],
        },
        "start": {"type": "string", "format": "date", "title": "Start date", "description": "YYYY-MM-DD."},
        "stops": {
            "type": "array",
            "title": "Stops",
            "description": "An array of objects, each a `$ref` to `#/$defs/Stop`.",
            "items": {"$ref": "#/$defs/Stop"},
            "minItems": 1,
        },
        "transport": {
            "title": "Transport",
            "description": "Exactly one variant (`oneOf`), told apart by the `mode` const.",
            "oneOf": [{"$ref": "#/$defs/Train"}, {"$ref": "#/$defs/Flight"}, {"$ref": "#/$defs/Car"}],
        },
        "budget": {
            "title": "Budget",
            "description": "Either an amount or a category (`anyOf`).",
            "anyOf": [
                {"type": "number", "minimum": 0, "title": "Amount in EUR"},
                {"type": "string", "enum": ["shoestring", "comfortable", "luxury"], "title": "Category"},
            ],
        },
        "tags": {
            "type": "array",
            "title": "Tags",
            "description": "An array of unique short strings.",
            "items": {"type": "string", "maxLength": 20},
            "uniqueItems": True,
            "default": [],
        },
        "return_stop": {
            "description": "An optional object that may also be null.",
            "anyOf": [{"$ref": "#/$defs/Place"}, {"type": "null"}],
            "default": None,
        },
        "notes": {
            "type": "string",
            "title": "Notes",
            "description": "Multi-line text for anything else.",
        },
    },
    "required": ["traveller", "start", "stops", "transport"],
}
