package dev.outboxer.it;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.TimeoutException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedCondition;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * A headless Chromium (Debian's {@code chromium} and {@code chromedriver} packages) driven by
 * Selenium, for the console test. Client side only.
 *
 * <p>Both executables are found on the {@code PATH} (or given with {@code -Doutboxer.it.chromium=}
 * and {@code -Dwebdriver.chrome.driver=}) and handed to Selenium, so Selenium Manager never tries to
 * download a browser or driver. When either is missing the test is skipped with a message saying
 * what to install, unless {@code outboxer.test.require-browser} is true (the {@code ci} profile):
 * then it fails.
 */
final class ConsoleBrowser implements AutoCloseable {

  static final String REQUIRE_BROWSER = "outboxer.test.require-browser";

  private final WebDriver driver;

  private ConsoleBrowser(WebDriver driver) {
    this.driver = driver;
  }

  /** Starts a headless Chromium with a laptop-sized window, or skips (fails in CI) without one. */
  static ConsoleBrowser start() {
    Optional<Path> chromium = executable("outboxer.it.chromium", "chromium", "chromium-browser", "google-chrome");
    Optional<Path> driver = executable("webdriver.chrome.driver", "chromedriver");
    if (chromium.isEmpty() || driver.isEmpty()) {
      String missing = "No " + (chromium.isEmpty() ? "chromium" : "") + (chromium.isEmpty() && driver.isEmpty() ? " and no " : "")
          + (driver.isEmpty() ? "chromedriver" : "") + " on the PATH: the console's browser test needs them"
          + " (Debian: apt-get install chromium chromium-driver).";
      if (Boolean.getBoolean(REQUIRE_BROWSER)) {
        Assertions.fail(missing + " " + REQUIRE_BROWSER + " is true (CI), so this is a failure, not a skip.");
      }
      Assumptions.abort(missing + " Skipped.");
    }
    ChromeOptions options = new ChromeOptions();
    options.setBinary(chromium.get().toFile());
    // --no-sandbox: CI runs as root, where Chromium refuses its sandbox. /dev/shm is small in containers.
    options.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
        "--window-size=1280,1000", "--lang=en-GB");
    ChromeDriverService service = new ChromeDriverService.Builder()
        .usingDriverExecutable(driver.get().toFile())
        .usingAnyFreePort()
        .build();
    return new ConsoleBrowser(new ChromeDriver(service, options));
  }

  private static Optional<Path> executable(String property, String... names) {
    String configured = System.getProperty(property);
    if (configured != null && !configured.isBlank()) {
      return Optional.of(Path.of(configured)).filter(Files::isExecutable);
    }
    String path = Optional.ofNullable(System.getenv("PATH")).orElse("");
    return Arrays.stream(names)
        .flatMap(name -> Stream.of(path.split(File.pathSeparator)).map(dir -> Path.of(dir, name)))
        .filter(Files::isExecutable)
        .findFirst();
  }

  void open(String url) {
    driver.get(url);
  }

  WebElement find(String css) {
    return driver.findElement(By.cssSelector(css));
  }

  boolean present(String css) {
    return !driver.findElements(By.cssSelector(css)).isEmpty();
  }

  boolean visible(String css) {
    return driver.findElements(By.cssSelector(css)).stream().anyMatch(WebElement::isDisplayed);
  }

  /**
   * The cells' texts of each row the selector matches, in document order. Read in one script, so
   * the table is seen as one state: the console re-renders its tables on every refresh, and cells
   * read one by one could come from two renderings or from rows already replaced.
   */
  @SuppressWarnings("unchecked")
  List<List<String>> rows(String rowCss) {
    Object cells = ((JavascriptExecutor) driver).executeScript(
        "return Array.from(document.querySelectorAll(arguments[0]), row =>"
            + " Array.from(row.querySelectorAll('td'), cell => cell.innerText.trim()));", rowCss);
    return ((List<List<Object>>) cells).stream().map(row -> row.stream().map(String::valueOf).toList()).toList();
  }

  /**
   * Clicks the element, finding it again if the page replaced it in between: the console re-renders
   * its tables on every refresh, so an element found a moment ago may be gone.
   */
  void click(String css) {
    for (int attempt = 1; ; attempt++) {
      try {
        find(css).click();
        return;
      } catch (StaleElementReferenceException replaced) {
        if (attempt == 3) {
          throw replaced;
        }
      }
    }
  }

  /** Resizes the browser window (the viewport follows it in headless Chromium). */
  void resize(int width, int height) {
    driver.manage().window().setSize(new Dimension(width, height));
  }

  /** The value of a JavaScript expression evaluated in the page. */
  Object evaluate(String expression) {
    return ((JavascriptExecutor) driver).executeScript("return " + expression + ";");
  }

  /**
   * Waits until the condition holds, checking every 200 ms. If it does not, the failure names what
   * did not happen and what the page said, and a screenshot is left in
   * {@code target/console-failure.png}.
   */
  void await(Duration atMost, String what, ExpectedCondition<Boolean> condition) {
    try {
      new WebDriverWait(driver, atMost, Duration.ofMillis(200)).until(condition);
    } catch (TimeoutException e) {
      String said = present("#message") ? find("#message").getText() : "";
      try {
        screenshot(Path.of("target", "console-failure.png"));
      } catch (IOException | RuntimeException screenshotFailed) {
        e.addSuppressed(screenshotFailed);
      }
      throw new AssertionError("Not within " + atMost.toSeconds() + "s: " + what + ". The page at "
          + driver.getCurrentUrl() + " said: '" + said + "' (screenshot: target/console-failure.png)", e);
    }
  }

  void screenshot(Path file) throws IOException {
    Files.createDirectories(file.toAbsolutePath().getParent());
    Files.write(file, ((TakesScreenshot) driver).getScreenshotAs(OutputType.BYTES));
  }

  @Override
  public void close() {
    driver.quit();
  }
}
