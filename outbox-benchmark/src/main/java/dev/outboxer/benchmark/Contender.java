package dev.outboxer.benchmark;

/** Who is measured, in the order each round runs them. */
enum Contender {
  RAW("raw"),
  OUTBOXER("Outboxer"),
  GRUELBOX("gruelbox");

  private final String label;

  Contender(String label) {
    this.label = label;
  }

  String label() {
    return label;
  }
}
