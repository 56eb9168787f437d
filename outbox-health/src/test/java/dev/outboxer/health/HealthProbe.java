package dev.outboxer.health;

import io.smallrye.health.SmallRyeHealth;
import io.smallrye.health.SmallRyeHealthReporter;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;

/**
 * Calls the health checks the way the {@code /health} endpoints do, through SmallRye Health's
 * reporter, and picks one check out of the JSON answer.
 */
final class HealthProbe {

  private final SmallRyeHealthReporter reporter;

  HealthProbe(SmallRyeHealthReporter reporter) {
    this.reporter = reporter;
  }

  JsonObject readiness(String check) {
    return find(reporter.getReadiness(), check);
  }

  JsonObject liveness(String check) {
    return find(reporter.getLiveness(), check);
  }

  static String status(JsonObject check) {
    return check.getString("status");
  }

  /** The check's data, empty if it has none. */
  static JsonObject data(JsonObject check) {
    JsonValue data = check.get("data");
    return data == null ? JsonValue.EMPTY_JSON_OBJECT : data.asJsonObject();
  }

  static JsonObject find(SmallRyeHealth health, String check) {
    return health.getPayload().getJsonArray("checks").stream().map(JsonValue::asJsonObject)
        .filter(entry -> entry.getString("name").equals(check)).findFirst()
        .orElseThrow(() -> new AssertionError("no check " + check + " in " + health.getPayload()));
  }
}
