package io.coordis.cli;

import io.coordis.testkit.ContinuousIntegration;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assumptions.assumeThat;

/**
 * Debian's headless Chromium driven through its own chromedriver, both named by path so Selenium Manager never looks
 * for a driver on the network. Without them a test fails in CI ({@link ContinuousIntegration}) and is skipped
 * elsewhere.
 */
final class Chromium {
    private static final Path BROWSER = Path.of("/usr/bin/chromium");
    private static final Path DRIVER = Path.of("/usr/bin/chromedriver");

    private Chromium() {
    }

    /** A fresh browser (its own profile directory) at {@code page}, 1400 by 1000 pixels. */
    static WebDriver open(String page) throws IOException {
        boolean present = Files.isExecutable(BROWSER) && Files.isExecutable(DRIVER);
        if (!present && ContinuousIntegration.running()) {
            throw new AssertionError(BROWSER + " or " + DRIVER + " is missing: .ci/run installs them "
                    + "(apt-get install chromium chromium-driver)");
        }
        assumeThat(present).as("Chromium and chromedriver (apt-get install chromium chromium-driver) are not "
                + "installed; the dashboard's browser tests are skipped").isTrue();
        Path profile = Files.createTempDirectory("coordis-dashboard-chromium");
        profile.toFile().deleteOnExit();
        ChromeOptions options = new ChromeOptions().setBinary(BROWSER.toFile()).addArguments("--headless=new",
                "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--window-size=1400,1000", "--user-data-dir=" + profile);
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(DRIVER.toFile())
                .usingAnyFreePort().build();
        WebDriver browser = new ChromeDriver(service, options);
        browser.manage().window().setSize(new Dimension(1400, 1000));
        browser.get(page);
        return browser;
    }
}
