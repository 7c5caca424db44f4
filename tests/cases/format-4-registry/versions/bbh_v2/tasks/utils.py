"""Helpers the slice's task files name with !function (lm-eval imports this file; freezer never does)."""

import re


def _answer(text):
    """The text after the last 'Answer:', lower-cased, with runs of blanks made one space and a
    closing full stop dropped ('Answer: 12.' is the answer 12)."""
    found = re.split(r"[Aa]nswer:", text)
    return " ".join(found[-1].split()).lower().removesuffix(".")


def exact_tokens(doc, results):
    """1.0 when the generation's answer is the target, token for token; else 0.0."""
    return {"exact_match": float(_answer(results[0]) == " ".join(doc["target"].split()).lower())}


def with_target(dataset):
    """Only the questions that have a target: an unlabelled row cannot be scored."""
    return dataset.filter(lambda doc: str(doc.get("target", "")).strip() != "")
