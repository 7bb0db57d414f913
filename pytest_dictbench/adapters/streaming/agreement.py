"""The local agreement policy of Whisper-Streaming (Macháček, Dabre and Bojar, "Turning
Whisper into Real-Time Transcription System", IJCNLP-AACL 2023 demo;
https://aclanthology.org/2023.ijcnlp-demo.3.pdf): the audio buffer is transcribed again
each time enough new audio has arrived, and the words on which two successive
hypotheses agree (their longest common prefix, after the words already committed) are
committed. Committed words are final; the rest of the latest hypothesis is the
unstable tail shown as a partial. Pure: hypotheses in, commitments out.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["Agreement", "Word"]


@dataclass(frozen=True)
class Word:
    """A hypothesis word with its audio times (seconds from the stream's start)."""

    text: str
    start: float
    end: float


def _key(word: Word) -> str:
    return word.text.strip().lower()


@dataclass
class Agreement:
    """LocalAgreement-2 over successive hypotheses of a growing audio buffer."""

    committed: list[Word] = field(default_factory=list)
    #: The uncommitted rest of the previous hypothesis.
    previous: list[Word] = field(default_factory=list)
    #: Words of a new hypothesis that start this much before the last committed word's
    #: end are taken as the same audio (whisper's word times wobble).
    overlap_s: float = 0.1

    def _new_part(self, hypothesis: list[Word]) -> list[Word]:
        """The hypothesis without the words already committed."""
        if not self.committed:
            return list(hypothesis)
        last = self.committed[-1].end
        fresh = [w for w in hypothesis if w.start > last - self.overlap_s]
        # drop an n-gram (up to 5 words) that repeats the end of the committed words
        for n in range(min(5, len(fresh), len(self.committed)), 0, -1):
            if [_key(w) for w in self.committed[-n:]] == [_key(w) for w in fresh[:n]]:
                return fresh[n:]
        return fresh

    def insert(self, hypothesis: list[Word]) -> list[Word]:
        """Take a new hypothesis of the buffer; the words newly committed."""
        new = self._new_part(hypothesis)
        agreed: list[Word] = []
        for old, word in zip(self.previous, new, strict=False):
            if _key(old) != _key(word):
                break
            agreed.append(word)
        self.committed.extend(agreed)
        self.previous = new[len(agreed):]
        return agreed

    def finish(self, hypothesis: list[Word]) -> list[Word]:
        """The last hypothesis, at the end of the stream: all of it is committed."""
        new = self._new_part(hypothesis)
        self.committed.extend(new)
        self.previous = []
        return new

    @property
    def tail(self) -> list[Word]:
        return self.previous

    @staticmethod
    def text(words: list[Word]) -> str:
        return "".join(w.text for w in words).strip()
