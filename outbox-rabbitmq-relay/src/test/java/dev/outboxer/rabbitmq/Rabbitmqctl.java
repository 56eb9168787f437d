package dev.outboxer.rabbitmq;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs {@code rabbitmqctl} against the local broker, for tests that stop it or change its limits. */
final class Rabbitmqctl {

  private Rabbitmqctl() {}

  /** Runs it and returns its output; fails the test if it fails or takes longer than two minutes. */
  static String run(String... arguments) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of("rabbitmqctl"));
    command.addAll(List.of(arguments));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    if (!process.waitFor(2, TimeUnit.MINUTES)) {
      process.destroyForcibly();
      throw new AssertionError(command + " did not finish within two minutes");
    }
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (process.exitValue() != 0) {
      throw new AssertionError(command + " failed with exit code " + process.exitValue() + ": " + output);
    }
    return output;
  }
}
