#!/usr/bin/env python3
"""Expected values for the scoring package's metric tests.

Each metric is re-implemented here step for step after its reference implementation, in plain
Python 3 with no packages, so the expected numbers in metrics_test.go can be reproduced:

  python3 scoring/testdata/reference.py

- exact match and F1: the official SQuAD v2.0 evaluation script (normalize_answer, compute_exact,
  compute_f1);
- BLEU: sacreBLEU 2.x sentence_bleu defaults — Tokenizer13a, BLEU.compute_bleu with
  smooth_method="exp", effective_order=True, one reference, score divided by 100;
- ROUGE-L: Google's rouge-score (rouge_scorer.RougeScorer(["rougeL"]), tokenize.tokenize without
  a stemmer, _score_lcs, scoring.fmeasure).

All three lower-case with str.lower(), Unicode's full case mapping with the Final_Sigma rule;
the "lower" lines give pytext_test.go's table of str.lower() results as Go literals.

It prints one line per case: metric, repr of the exact value, and the value rounded to 3 decimals
as the evaluators record it.
"""

import collections
import math
import re
import string


# --- SQuAD v2.0 -----------------------------------------------------------------------------

def squad_normalize(s):
    s = s.lower()
    s = "".join(ch for ch in s if ch not in set(string.punctuation))
    s = re.sub(r"\b(a|an|the)\b", " ", s)
    return " ".join(s.split())


def squad_tokens(s):
    if not s:
        return []
    return squad_normalize(s).split()


def exact_match(pred, gold):
    return float(squad_normalize(gold) == squad_normalize(pred))


def f1(pred, gold):
    gold_toks = squad_tokens(gold)
    pred_toks = squad_tokens(pred)
    common = collections.Counter(gold_toks) & collections.Counter(pred_toks)
    same = sum(common.values())
    if len(gold_toks) == 0 or len(pred_toks) == 0:
        return float(gold_toks == pred_toks)
    if same == 0:
        return 0.0
    precision = 1.0 * same / len(pred_toks)
    recall = 1.0 * same / len(gold_toks)
    return (2 * precision * recall) / (precision + recall)


# --- sacreBLEU sentence_bleu ----------------------------------------------------------------

TOK_RES = [
    (re.compile(r"([\{-\~\[-\` -\&\(-\+\:-\@\/])"), r" \1 "),
    (re.compile(r"([^0-9])([\.,])"), r"\1 \2 "),
    (re.compile(r"([\.,])([^0-9])"), r" \1 \2"),
    (re.compile(r"([0-9])(-)"), r"\1 \2 "),
]


def tokenize_13a(line):
    line = line.rstrip()
    line = line.replace("<skipped>", "")
    line = line.replace("-\n", "")
    line = line.replace("\n", " ")
    line = line.replace("&quot;", '"')
    line = line.replace("&amp;", "&")
    line = line.replace("&lt;", "<")
    line = line.replace("&gt;", ">")
    line = " {} ".format(line)
    for regex, repl in TOK_RES:
        line = regex.sub(repl, line)
    return " ".join(line.strip().split())


def ngrams(tokens, max_order):
    out = []
    for n in range(1, max_order + 1):
        for i in range(0, len(tokens) - n + 1):
            out.append(tuple(tokens[i:i + n]))
    return collections.Counter(out)


def my_log(x):
    if x == 0.0:
        return -9999999999
    return math.log(x)


def bleu(hyp, ref, max_order=4):
    hyp_toks = tokenize_13a(hyp).split()
    ref_toks = tokenize_13a(ref).split()
    hyp_ngrams, ref_ngrams = ngrams(hyp_toks, max_order), ngrams(ref_toks, max_order)
    correct = [0] * max_order
    total = [0] * max_order
    for gram, count in hyp_ngrams.items():
        n = len(gram) - 1
        total[n] += count
        if gram in ref_ngrams:
            correct[n] += min(count, ref_ngrams[gram])
    sys_len, ref_len = len(hyp_toks), len(ref_toks)
    if sys_len < ref_len:
        bp = math.exp(1 - ref_len / sys_len) if sys_len > 0 else 0.0
    else:
        bp = 1.0
    precisions = [0.0] * max_order
    if not any(correct):
        return 0.0
    smooth_mteval = 1.0
    eff_order = max_order
    for n in range(1, max_order + 1):
        if total[n - 1] == 0:
            break
        eff_order = n
        if correct[n - 1] == 0:
            smooth_mteval *= 2
            precisions[n - 1] = 100.0 / (smooth_mteval * total[n - 1])
        else:
            precisions[n - 1] = 100.0 * correct[n - 1] / total[n - 1]
    score = bp * math.exp(sum([my_log(p) for p in precisions[:eff_order]]) / eff_order)
    return score / 100


# --- rouge-score ROUGE-L --------------------------------------------------------------------

def rouge_tokens(text):
    text = text.lower()
    text = re.sub(r"[^a-z0-9]+", " ", text)
    tokens = re.split(r"\s+", text)
    return [x for x in tokens if re.match(r"^[a-z0-9]+$", x)]


def rouge_l(pred, target):
    t, p = rouge_tokens(target), rouge_tokens(pred)
    if not t or not p:
        return 0.0
    table = [[0] * (len(p) + 1) for _ in range(len(t) + 1)]
    for i in range(1, len(t) + 1):
        for j in range(1, len(p) + 1):
            if t[i - 1] == p[j - 1]:
                table[i][j] = table[i - 1][j - 1] + 1
            else:
                table[i][j] = max(table[i - 1][j], table[i][j - 1])
    lcs = table[-1][-1]
    precision, recall = lcs / len(p), lcs / len(t)
    if precision + recall > 0:
        return 2 * precision * recall / (precision + recall)
    return 0.0


# --- cases (the same as in metrics_test.go) --------------------------------------------------

SQUAD_CASES = [
    ("the cat sat", "the cat sat on the mat"),
    ("The Cat sat!", "cat  sat"),
    ("", ""),
    ("", "something"),
    ("a an the", ""),
    ("Paris, France.", "paris"),
    ("the\u2014cat sat", "cat sat"),
    ("then the theme", "then theme"),
    ("It's 3.14 \u2014 roughly", "its 314 roughly"),
    ("dog dog dog", "dog"),
    ("Caf\u00e9 the_end", "caf\u00e9 the end"),
    ("A\u00a0cat", "cat"),
    ("cat\x1fsat", "cat sat"),
    ("The Eiffel Tower is in Paris, the capital of France.", "Paris"),
    ("\u039f\u0394\u039f\u03a3", "\u03bf\u03b4\u03bf\u03c2"),
    ("\u039f\u0394\u039f\u03a3 \u0391\u0398\u0397\u039d\u03a9\u039d", "\u03bf\u03b4\u03bf\u03c3 \u03b1\u03b8\u03b7\u03bd\u03c9\u03bd"),
    ("\u0130stanbul", "istanbul"),
    ("\u0130stanbul", "i\u0307stanbul"),
]

# str.lower() on strings where Unicode's full case mapping and the Final_Sigma rule matter, as
# Python implements them: U+0130 becomes "i" and U+0307; a capital sigma becomes a final sigma
# when a cased letter comes before it (case-ignorable characters skipped first) and none after.
LOWER_CASES = [
    ("dotted capital I", "\u0130"), ("", "\u0130STANBUL"),
    ("final sigma", "\u039f\u0394\u039f\u03a3"), ("", "\u039f\u0394\u039f\u03a3 \u039f\u0394\u039f\u03a3."),
    ("", "\u03a3\u0391\u03a3 \u03a3\u0391\u03a3"), ("", "\u038c\u03a3\u039f\u03a3"),
    ("not final: nothing cased before, or a cased letter after", "\u03a3"), ("", "\u03a3 \u0391"), ("", "1\u03a3"),
    ("", "\u0391\u03a3\u0391"), ("", "\u03a3\u03a3"), ("", "\u0391\u03a3\u03a3\u0391"), ("", "\u0391\u03a31"),
    ("", "\u0391\u03a3\U0001d400"),
    ("case-ignorable characters are skipped on both sides", "\u0391\u03a3\u0301"), ("", "\u0391\u0301\u03a3"),
    ("", "\u0391\u03a3'\u0391"), ("", "\u0391\u03a3'"), ("", "\u0391'\u03a3"), ("", "\u0391.\u03a3"),
    ("", "\u0391\u03a3:\u0391"), ("", "\u0391\u03a3\u2019\u0391"), ("", "\u0391\u03a3\u00b7"),
    ("", "\u0391\u00ad\u03a3"), ("", "\u0391\u03a3\u00ad\u0391"), ("", "\u0391\u03a3\u200b"), ("", "\u01c5\u03a3"),
    ("cased and case-ignorable (modifier letters, ypogegrammeni): skipped before the sigma",
     "\u02b0\u03a3"), ("", "1\u0345\u03a3"), ("", "\u1d2c\u03a3"), ("", "\u0391\u02b0\u03a3"),
    ("", "\u0391\u03a3\u02b0"), ("", "\u0391\u03a3\u02b0\u0391"), ("", "\u0391\u03a3\u0345"),
    ("no lower-case mapping", "\u00df"), ("", "\ufb01"), ("", "\u0131"), ("", "\u0390"), ("", "\u0587"),
    ("", "\u2c65"),
    ("capital sharp s, digraphs", "\u1e9e"), ("", "\u01c4"), ("", "\u01c5"),
    ("dotless i and I: no Turkish rule", "I\u0131"),
    ("ohm, kelvin and angstrom signs", "\u2126"), ("", "\u212a"), ("", "\u212b"),
    ("combining marks kept", "E\u0301"), ("", "\u0130\u0301"),
    ("other scripts", "\u13a0"), ("", "\U00010400"), ("", "\u0531"), ("", "\u1f48"), ("", "\u1fbc"),
    ("", "\u24b6"), ("", "\u0410\u0411\u0412"),
]


def go_literal(s):
    """s as a Go string literal with every non-ASCII character escaped."""
    out = '"'
    for c in s:
        o = ord(c)
        if c in '"\\':
            out += "\\" + c
        elif 0x20 <= o < 0x7f:
            out += c
        elif o <= 0xFFFF:
            out += "\\u%04x" % o
        else:
            out += "\\U%08x" % o
    return out + '"'

BLEU_CASES = [
    ("The quick brown fox jumps over the lazy dog.", "The quick brown fox jumps over the lazy dog."),
    ("the cat sat", "the cat sat on the mat"),
    ("The cat is on the mat.", "There is a cat on the mat."),
    ("hello world", "foo bar"),
    ("", "the cat"),
    ("the cat", ""),
    ("It costs 1,000.50 dollars, today.", "It costs 1,000.50 dollars today."),
    ("Tom &amp; Jerry &lt;3", "Tom & Jerry <3"),
    ("THE CAT", "the cat"),
    ("the 2019-2020 season was long", "the 2019 - 2020 season was long"),
    ("Run vectorlint on every pull request so reviewers see scores before they read the diff.",
     "Run vectorlint on each pull request, so that reviewers see the scores before reading the diff."),
    ("a b c d e", "a b x d e"),
    ("well-known (and loved) \"quotes\": yes/no?", "well-known and loved quotes: yes or no?"),
]

ROUGE_CASES = [
    ("testing one", "testing one two"),
    ("testing two", "testing one two"),
    ("the cat sat", "the cat sat on the mat"),
    ("The quick brown dog jumps on the log.", "The quick brown fox jumps over the lazy dog"),
    ("\u65e5\u672c\u8a9e\u306e\u30c6\u30ad\u30b9\u30c8", "\u65e5\u672c\u8a9e\u306e\u30c6\u30ad\u30b9\u30c8"),
    ("police killed the gunman", "the gunman killed police"),
    ("", "x"),
    ("Hello, WORLD!!", "hello world"),
    ("caf\u00e9 au lait", "cafe au lait"),
    ("\u0130zmir is warm", "i zmir is warm"),
    ("\u0130stanbul", "istanbul"),
    ("Run vectorlint on every pull request so reviewers see scores before they read the diff.",
     "Run vectorlint on each pull request, so that reviewers see the scores before reading the diff."),
]


def main():
    for pred, gold in SQUAD_CASES:
        print("exact_match", repr(pred), repr(gold), repr(exact_match(pred, gold)))
        v = f1(pred, gold)
        print("f1", repr(pred), repr(gold), repr(v), round(v, 3))
    for hyp, ref in BLEU_CASES:
        v = bleu(hyp, ref)
        print("bleu", repr(hyp), repr(ref), repr(v), round(v, 3), tokenize_13a(hyp).split())
    for pred, target in ROUGE_CASES:
        v = rouge_l(pred, target)
        print("rouge_l", repr(pred), repr(target), repr(v), round(v, 3))
    for note, s in LOWER_CASES:
        print("lower", "// " + note if note else "", "{%s, %s}," % (go_literal(s), go_literal(s.lower())))


if __name__ == "__main__":
    main()
