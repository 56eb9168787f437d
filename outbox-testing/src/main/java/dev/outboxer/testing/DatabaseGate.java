package dev.outboxer.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;

/**
 * A database that is down until a test says otherwise, without stopping a server others use: a
 * local port that refuses connections (nothing listens, as on a database host whose server is down)
 * until {@link #open()}, then forwards every connection to the real database. Used by the tests of
 * a node started before its database and by the chaos suite's fault {@code db-down}.
 *
 * <p>Guarantees: connections made before {@link #open()} are refused at once; after it, each is
 * forwarded byte for byte until either side closes; {@link #close()} ends all of them. Not
 * guaranteed: that the port, free when the gate was made, is still free when it opens.
 */
public final class DatabaseGate implements AutoCloseable {

  private final String targetHost;
  private final int targetPort;
  private final int port;
  private final List<Socket> sockets = new ArrayList<>();
  private ServerSocket server;
  private volatile boolean closed;

  /**
   * A closed gate on a free local port.
   *
   * @param targetHost the database's host
   * @param targetPort the database's port
   * @throws IOException if no local port can be had
   */
  public DatabaseGate(String targetHost, int targetPort) throws IOException {
    this(targetHost, targetPort, freePort());
  }

  /**
   * A closed gate on a given local port: for a test whose application was configured with the
   * port of another gate (one made, and its port taken, where the application's configuration is
   * written; Quarkus' tests load their classes again, so that gate is not at hand).
   *
   * @param targetHost the database's host
   * @param targetPort the database's port
   * @param port the local port to listen on once {@link #open()}ed
   */
  public DatabaseGate(String targetHost, int targetPort, int port) {
    this.targetHost = targetHost;
    this.targetPort = targetPort;
    this.port = port;
  }

  private static int freePort() throws IOException {
    try (ServerSocket probe = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      return probe.getLocalPort();
    }
  }

  /**
   * @return the local port to connect to instead of the database's
   */
  public int port() {
    return port;
  }

  /**
   * The database answers from now on.
   *
   * @throws IOException if the port cannot be bound
   */
  public synchronized void open() throws IOException {
    if (server != null || closed) {
      return;
    }
    server = new ServerSocket();
    server.setReuseAddress(true);
    server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
    Thread accept = new Thread(this::acceptLoop, "database-gate-" + port);
    accept.setDaemon(true);
    accept.start();
  }

  private void acceptLoop() {
    while (!closed) {
      try {
        Socket client = server.accept();
        Socket database = new Socket(targetHost, targetPort);
        synchronized (sockets) {
          sockets.add(client);
          sockets.add(database);
        }
        pump(client, database);
        pump(database, client);
      } catch (IOException e) {
        if (closed) {
          return;
        }
      }
    }
  }

  private static void pump(Socket from, Socket to) throws IOException {
    InputStream in = from.getInputStream();
    OutputStream out = to.getOutputStream();
    Thread thread = new Thread(() -> {
      byte[] buffer = new byte[16 * 1024];
      try {
        for (int n; (n = in.read(buffer)) >= 0; ) {
          out.write(buffer, 0, n);
          out.flush();
        }
      } catch (IOException ended) {
        // one side went away
      } finally {
        closeQuietly(from);
        closeQuietly(to);
      }
    }, "database-gate-pump");
    thread.setDaemon(true);
    thread.start();
  }

  private static void closeQuietly(Socket socket) {
    try {
      socket.close();
    } catch (IOException ignored) {
      // closing anyway
    }
  }

  @Override
  public synchronized void close() {
    closed = true;
    if (server != null) {
      try {
        server.close();
      } catch (IOException ignored) {
        // closing anyway
      }
    }
    synchronized (sockets) {
      sockets.forEach(DatabaseGate::closeQuietly);
    }
  }
}
