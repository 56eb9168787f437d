package dev.outboxer.admin;

/**
 * The admin API's fixed names and limits: headers, the challenge realm, page sizes. Its one
 * configuration key, {@code outbox.admin.role}, is declared in {@link AdminSettingsCatalog}.
 */
final class AdminProtocol {

  /** The header every changing call must carry, with the value {@value #CSRF_VALUE}. */
  static final String CSRF_HEADER = "X-Outbox-Admin";
  static final String CSRF_VALUE = "1";
  /** The header and value by which the console's script asks for a 401 the browser does not act on. */
  static final String SCRIPT_HEADER = "X-Requested-With";
  static final String SCRIPT_VALUE = "XMLHttpRequest";
  /** The challenge scheme of that 401: not Basic, so no browser puts up its own sign-in dialog. */
  static final String SCRIPT_SCHEME = "OutboxConsole";

  /** The realm named in the 401 answer's Basic challenge. */
  static final String REALM = "outbox-admin";

  /** Dead messages per page: the default and the most one call may ask for. */
  static final int DEFAULT_PAGE_SIZE = 50;
  static final int MAX_PAGE_SIZE = 500;

  private AdminProtocol() {}
}
