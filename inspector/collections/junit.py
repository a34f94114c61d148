"""JUnit XML, the report format CI systems read: one `testsuite` per
collection, one `testcase` per step, a `failure` per step whose expectations
failed (each failed expectation on its own line) and an `error` for a step
that got no answer or a collection that could not connect.

Server text goes into XML attributes and text: characters XML 1.0 cannot
carry at all (most C0 controls, lone surrogates) and the ones that would act
on a terminal showing the report are written as `\\u` escapes.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from inspector.collections.running import CollectionResult, StepResult

__all__ = ["junit_xml", "xml_safe"]

# C0 controls but tab and newline, DEL and C1, bidi controls, lone surrogates, U+FFFE/U+FFFF.
_UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff\ufffe\uffff]"
)


def xml_safe(text: str) -> str:
    """`text` with what XML 1.0 cannot carry, or a terminal would act on, written as `\\u` escapes."""
    return _UNSAFE.sub(lambda m: f"\\u{ord(m.group(0)):04x}", text)


def _seconds(ms: float) -> str:
    return f"{ms / 1000:.3f}"


def _case(suite: ET.Element, classname: str, result: StepResult) -> None:
    case = ET.SubElement(
        suite,
        "testcase",
        classname=xml_safe(classname),
        name=xml_safe(result.step.name),
        time=_seconds(result.answer.elapsed_ms),
    )
    lines = [("ok    " if check.passed else "FAIL  ") + check.label for check in result.checks]
    lines += [f"      {check.label}: {check.detail}" for check in result.failed_checks if check.detail]
    body = xml_safe("\n".join(lines))
    if result.answer.failure is not None:
        error = ET.SubElement(case, "error", message=xml_safe(result.answer.failure), type="no answer")
        error.text = body
    elif not result.passed:
        first = result.failed_checks[0]
        message = f"{first.label}: {first.detail}" if first.detail else first.label
        failure = ET.SubElement(case, "failure", message=xml_safe(message), type="expectation")
        failure.text = body
    else:
        out = ET.SubElement(case, "system-out")
        out.text = body


def junit_xml(results: list[CollectionResult]) -> str:
    """The JUnit XML document for the collections' results, with the totals over all of them."""
    root = ET.Element("testsuites", name="inspector test")
    totals = {"tests": 0, "failures": 0, "errors": 0}
    total_ms = 0.0
    for result in results:
        steps = result.steps
        errors = sum(1 for s in steps if s.answer.failure is not None) + (1 if result.failure else 0)
        failures = sum(1 for s in steps if s.answer.failure is None and not s.passed)
        ms = sum(s.answer.elapsed_ms for s in steps)
        tests = len(steps) or 1
        suite = ET.SubElement(
            root,
            "testsuite",
            name=xml_safe(result.collection.name),
            file=xml_safe(result.collection.path),
            tests=str(tests),
            failures=str(failures),
            errors=str(errors),
            skipped="0",
            time=_seconds(ms),
        )
        if result.server:
            properties = ET.SubElement(suite, "properties")
            ET.SubElement(properties, "property", name="server", value=xml_safe(result.server))
            if result.protocol_version:
                ET.SubElement(properties, "property", name="protocolVersion", value=result.protocol_version)
        if result.failure is not None:
            case = ET.SubElement(suite, "testcase", classname=xml_safe(result.collection.name), name="connect")
            error = ET.SubElement(case, "error", message=xml_safe(result.failure), type="cannot run")
            error.text = xml_safe(result.failure)
        for step in steps:
            _case(suite, result.collection.name, step)
        totals["tests"] += tests
        totals["failures"] += failures
        totals["errors"] += errors
        total_ms += ms
    for key, value in totals.items():
        root.set(key, str(value))
    root.set("time", _seconds(total_ms))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
