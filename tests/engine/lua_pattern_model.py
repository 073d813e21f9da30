"""A step-counting model of Lua 5.4's pattern matcher (lstrlib.c: match, max_expand, min_expand,
matchbalance, match_capture, singlematch, classEnd), used to check that the sandbox's cost
estimate bounds the work the real C matcher does.

A step is one unit of C work: a call of `match`, one pattern byte scanned by `classEnd` or by a
bracket class in `singlematch`, one subject byte scanned by `%b`, compared by a back-reference or
tested by `singlematch`. Results are also returned so tests can check the model against real Lua.
"""
from __future__ import annotations

MAXCCALLS = 200
CAP_UNFINISHED, CAP_POSITION = -1, -2


class PatternError(Exception):
    pass


class Model:
    def __init__(self, subject: bytes, pattern: bytes):
        self.src = subject
        self.p = pattern
        self.steps = 0
        self.captures: list[list[int]] = []
        self.depth = MAXCCALLS

    # --- helpers ---------------------------------------------------------------------------------
    def char(self, i: int) -> int:
        return self.src[i] if i < len(self.src) else 0  # C strings end in a NUL

    def class_end(self, p: int) -> int:
        pat = self.p
        self.steps += 1
        c = pat[p]
        p += 1
        if c == ord("%"):
            if p >= len(pat):
                raise PatternError("malformed pattern (ends with '%')")
            return p + 1
        if c == ord("["):
            if p < len(pat) and pat[p] == ord("^"):
                p += 1
            while True:  # look for a ']'
                self.steps += 1
                if p >= len(pat):
                    raise PatternError("malformed pattern (missing ']')")
                cc = pat[p]
                p += 1
                if cc == ord("%") and p < len(pat):
                    p += 1
                if p < len(pat) and pat[p] == ord("]"):
                    return p + 1

        return p

    @staticmethod
    def match_class(c: int, cl: int) -> bool:
        ch = chr(c)
        low = chr(cl).lower()
        tests = {"a": ch.isascii() and ch.isalpha(), "c": c < 32 or c == 127, "d": ch.isdigit() and ch.isascii(),
                 "g": 33 <= c <= 126, "l": "a" <= ch <= "z", "p": 33 <= c <= 126 and not ch.isalnum(),
                 "s": c in (9, 10, 11, 12, 13, 32), "u": "A" <= ch <= "Z", "w": ch.isascii() and ch.isalnum(),
                 "x": ch in "0123456789abcdefABCDEF"}
        if low not in tests:
            return cl == c
        res = tests[low]
        return not res if chr(cl).isupper() else res

    def match_bracket(self, c: int, p: int, ec: int) -> bool:
        pat = self.p
        sig = True
        if pat[p + 1] == ord("^"):
            sig = False
            p += 1
        while True:
            p += 1
            if p >= ec:
                return not sig
            self.steps += 1
            if pat[p] == ord("%"):
                p += 1
                if self.match_class(c, pat[p]):
                    return sig
            elif pat[p + 1] == ord("-") and p + 2 < ec:
                p += 2
                if pat[p - 2] <= c <= pat[p]:
                    return sig
            elif pat[p] == c:
                return sig

    def single(self, s: int, p: int, ep: int) -> bool:
        self.steps += 1
        if s >= len(self.src):
            return False
        c = self.src[s]
        pc = self.p[p]
        if pc == ord("."):
            return True
        if pc == ord("%"):
            return self.match_class(c, self.p[p + 1])
        if pc == ord("["):
            return self.match_bracket(c, p, ep - 1)
        return pc == c

    # --- the matcher -----------------------------------------------------------------------------
    def match(self, s: int | None, p: int) -> int | None:
        self.steps += 1
        self.depth -= 1
        if self.depth == 0:
            raise PatternError("pattern too complex")
        pat = self.p
        while True:
            if p == len(pat):
                break
            c = pat[p]
            if c == ord("("):
                if p + 1 < len(pat) and pat[p + 1] == ord(")"):
                    s = self.start_capture(s, p + 2, CAP_POSITION)
                else:
                    s = self.start_capture(s, p + 1, CAP_UNFINISHED)
                break
            if c == ord(")"):
                s = self.end_capture(s, p + 1)
                break
            if c == ord("$") and p + 1 == len(pat):
                s = s if s == len(self.src) else None
                break
            if c == ord("%") and p + 1 < len(pat) and pat[p + 1] == ord("b"):
                s = self.match_balance(s, p + 2)
                if s is not None:
                    p += 4
                    continue
                break
            if c == ord("%") and p + 1 < len(pat) and pat[p + 1] == ord("f"):
                p += 2
                if p >= len(pat) or pat[p] != ord("["):
                    raise PatternError("missing '[' after '%f' in pattern")
                ep = self.class_end(p)
                prev = 0 if s == 0 else self.src[s - 1]
                if not self.match_bracket(prev, p, ep - 1) and self.match_bracket(self.char(s), p, ep - 1):
                    p = ep
                    continue
                s = None
                break
            if c == ord("%") and p + 1 < len(pat) and chr(pat[p + 1]).isdigit():
                s = self.match_capture(s, pat[p + 1])
                if s is not None:
                    p += 2
                    continue
                break
            ep = self.class_end(p)
            epc = pat[ep] if ep < len(pat) else None
            if not self.single(s, p, ep):
                if epc in (ord("*"), ord("?"), ord("-")):
                    p = ep + 1
                    continue
                s = None
                break
            if epc == ord("?"):
                res = self.match(s + 1, ep + 1)
                if res is not None:
                    s = res
                    break
                p = ep + 1
                continue
            if epc == ord("+"):
                s = self.max_expand(s + 1, p, ep)
            elif epc == ord("*"):
                s = self.max_expand(s, p, ep)
            elif epc == ord("-"):
                s = self.min_expand(s, p, ep)
            else:
                s += 1
                p = ep
                continue
            break
        self.depth += 1
        return s

    def max_expand(self, s: int, p: int, ep: int) -> int | None:
        i = 0
        while self.single(s + i, p, ep):
            i += 1
        while i >= 0:
            res = self.match(s + i, ep + 1)
            if res is not None:
                return res
            i -= 1
        return None

    def min_expand(self, s: int, p: int, ep: int) -> int | None:
        while True:
            res = self.match(s, ep + 1)
            if res is not None:
                return res
            if self.single(s, p, ep):
                s += 1
            else:
                return None

    def start_capture(self, s: int, p: int, what: int) -> int | None:
        if len(self.captures) >= 32:
            raise PatternError("too many captures")
        self.captures.append([s, what])
        res = self.match(s, p)
        if res is None:
            self.captures.pop()
        return res

    def end_capture(self, s: int, p: int) -> int | None:
        level = next((i for i in range(len(self.captures) - 1, -1, -1) if self.captures[i][1] == CAP_UNFINISHED), None)
        if level is None:
            raise PatternError("invalid pattern capture")
        self.captures[level][1] = s - self.captures[level][0]
        res = self.match(s, p)
        if res is None:
            self.captures[level][1] = CAP_UNFINISHED
        return res

    def match_balance(self, s: int, p: int) -> int | None:
        if p + 1 >= len(self.p):
            raise PatternError("malformed pattern (missing arguments to '%b')")
        self.steps += 1
        if self.char(s) != self.p[p]:
            return None
        b, e, cont = self.p[p], self.p[p + 1], 1
        s += 1
        while s < len(self.src):
            self.steps += 1
            c = self.src[s]
            if c == e:
                cont -= 1
                if cont == 0:
                    return s + 1
            elif c == b:
                cont += 1
            s += 1
        return None

    def match_capture(self, s: int, digit: int) -> int | None:
        level = digit - ord("1")
        if level < 0 or level >= len(self.captures) or self.captures[level][1] == CAP_UNFINISHED:
            raise PatternError("invalid capture index")
        init, length = self.captures[level]
        self.steps += 1
        if length == CAP_POSITION:  # C compares (size_t)-2 with the bytes left: never enough
            return None
        self.steps += length
        if len(self.src) - s >= length and self.src[init:init + length] == self.src[s:s + length]:
            return s + length
        return None


def find(subject: bytes, pattern: bytes) -> tuple[int | None, int]:
    """string.find(subject, pattern) (1-based start or None) and the steps it took."""
    m = Model(subject, pattern)
    p = 0
    anchor = pattern[:1] == b"^"
    if anchor:
        m.p = pattern = pattern[1:]
    s = 0
    while True:
        m.captures = []
        m.depth = MAXCCALLS
        if m.match(s, p) is not None:
            return s + 1, m.steps
        s += 1
        if s > len(subject) or anchor:
            return None, m.steps


def gsub_steps(subject: bytes, pattern: bytes) -> tuple[int, int]:
    """Matches string.gsub(subject, pattern, "") makes, and the steps it took."""
    m = Model(subject, pattern)
    anchor = pattern[:1] == b"^"
    if anchor:
        m.p = pattern[1:]
    src, last, n = 0, None, 0
    while True:
        m.captures = []
        m.depth = MAXCCALLS
        e = m.match(src, 0)
        if e is not None and e != last:
            n += 1
            src = last = e
        elif src < len(subject):
            src += 1
        else:
            break
        if anchor:
            break
    return n, m.steps
