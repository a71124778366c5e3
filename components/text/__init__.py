"""Text in Japanese and English: language detection, one MeCab tagger, sentence splitting, the BM25
tokenizer, and the messages users read (「情報が見つかりませんでした」 and its English twin), each
defined once. Everything that needs to know whether a character is Japanese asks ``language``."""
