"""What the detector reports: the entity types, which of them the guardrails redact, and one found entity."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

#: What the guardrails replace in questions and answers: data that identifies or reaches a
#: person. Not here, though detected on request (``entities=``): DATE_TIME ("next Tuesday",
#: "2024年3月" are in most questions about notes and identify nobody), ORGANIZATION (company
#: and product names are what people search their notes for) and LOCATION (a city or a
#: country alone; a street address is STREET_ADDRESS and is redacted). Redacting those would
#: blank the questions' content words and cost retrieval and answer quality for no privacy.
REDACTED_ENTITIES: frozenset[str] = frozenset(
    {
        "PERSON",
        "STREET_ADDRESS",
        "PHONE_NUMBER",
        "EMAIL_ADDRESS",
        "CREDIT_CARD",
        "IBAN_CODE",
        "IP_ADDRESS",
        "US_SSN",
        "JP_MY_NUMBER",
        "JP_POSTAL_CODE",
    }
)
#: detected when asked for, never redacted by the guardrails (see above)
CONTEXT_ENTITIES: frozenset[str] = frozenset({"LOCATION", "ORGANIZATION", "DATE_TIME"})
SUPPORTED_ENTITIES: frozenset[str] = REDACTED_ENTITIES | CONTEXT_ENTITIES
#: the types spaCy's NER finds; pattern recognizers find the rest
NER_TYPES: frozenset[str] = frozenset({"PERSON", "LOCATION", "ORGANIZATION", "DATE_TIME"})


class PIIEntity(BaseModel):
    """One piece of personal data: Presidio's entity name, its span in the original text, its score."""

    model_config = ConfigDict(frozen=True)

    start: int = Field(ge=0, description="Offset of the first character in the text as the caller gave it.")
    end: int = Field(ge=0, description="Offset just past the last character.")
    entity_type: str = Field(description="Presidio's name: PERSON, PHONE_NUMBER, EMAIL_ADDRESS, JP_MY_NUMBER ...")
    score: float = Field(ge=0.0, le=1.0, description="Presidio's confidence after context words.")
    text: str = Field(description="The characters of the span, as written.")

    @property
    def kind(self) -> str:
        """The entity type under the name the first, regex-based detector used (nodes read ``.kind``)."""
        return self.entity_type
