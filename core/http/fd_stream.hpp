#pragma once
// FdStream: one non-blocking TCP socket on the Qt event loop of its thread,
// without QTcpSocket's buffering. The HTTP hot path (every replica and the
// builtin front) uses it because a QTcpSocket write only queues the bytes and
// sends them on a later loop iteration (a write-notifier toggle and a wakeup
// per answer), and every read goes through a second buffer.
//
//   reading   readable() fires when bytes or EOF are there; readInto() appends
//             what the kernel holds (up to a cap) to the caller's buffer.
//   writing   write() sends at once, except while the thread's epoll pass is
//             dispatching: then the bytes go out in one send when the pass
//             ends (so answers to requests read in one pass share a send).
//             What the kernel does not take is kept and sent when the socket
//             is writable. cork()/uncork() gather writes into one send too.
//   closing   closeAfterFlush() sends what is queued, then closes; abort()
//             closes at once. closed() fires once, for EOF, errors and closes.
// Everything runs on the thread that created the stream.
//
// Readiness comes from one epoll set per thread, itself watched by a single
// QSocketNotifier: the event loop polls one descriptor however many
// connections the thread has (Qt's own notifiers make it poll every socket
// on every loop iteration).

#include <QObject>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace rl {

class EpollHub;

class FdStream final : public QObject {
 public:
  /// Takes ownership of the connected (or connecting) socket `fd`; makes it non-blocking, no Nagle.
  explicit FdStream(int fd, QObject* parent = nullptr);
  ~FdStream() override;
  FdStream(const FdStream&) = delete;
  FdStream& operator=(const FdStream&) = delete;

  /// Starts a non-blocking connect to `address`:`port` (IPv4 or IPv6 text). nullptr when
  /// the address is not an IP or no socket can be made. Writes before connected() are queued.
  static FdStream* connectTo(const std::string& address, int port, QObject* parent = nullptr);

  /// Called when bytes (or EOF) can be read.
  void onReadable(std::function<void()> f) { readable_ = std::move(f); }
  /// Called once when the stream is closed: EOF, an error, abort() or a finished closeAfterFlush().
  void onClosed(std::function<void()> f) { closed_ = std::move(f); }
  /// Called when output the kernel had refused has all been sent.
  void onDrained(std::function<void()> f) { drained_ = std::move(f); }

  /// Appends up to `maxBytes` received bytes to `buffer`. Returns false at EOF or on an error
  /// (the stream is then closed and closed() has fired).
  bool readInto(std::string& buffer, std::size_t maxBytes);
  /// Turns the read notifier off (a full buffer) or on again.
  void setReading(bool on);

  /// Sends `bytes` (or queues them while corked, connecting, or the kernel is full).
  void write(std::string_view bytes);
  /// Gathers writes until uncork(), which sends them in one go.
  void cork() { ++corked_; }
  void uncork();
  /// Bytes queued, not yet handed to the kernel.
  std::size_t pendingOutput() const { return out_.size() - sent_; }
  /// Bytes the kernel holds for reading (not read yet); 0 when closed.
  std::size_t pendingInput() const;

  /// Sends what is queued, then closes.
  void closeAfterFlush();
  /// Closes now; queued bytes are dropped.
  void abort();
  /// Not closed yet.
  bool isOpen() const { return fd_ >= 0; }
  /// Still connecting (connectTo()).
  bool isConnecting() const { return connecting_; }
  /// The connect of connectTo() failed (the stream is closed); closeError() says why.
  bool connectFailed() const { return connectFailed_; }
  /// Why the stream closed, when an error closed it ("Connection refused"); else empty.
  std::string closeError() const;
  /// The connected peer's address ("127.0.0.1", "::1"); empty when unknown.
  std::string peerAddress() const;

 private:
  friend class EpollHub;
  void onEvents(std::uint32_t events);
  void flush();
  void onWritable();
  void finishClose(int error = 0);
  void updateWriteNotifier();
  void watch();

  int fd_;                            ///< the socket; -1 once closed
  EpollHub* hub_;                     ///< this thread's epoll set
  bool reading_ = true;               ///< EPOLLIN is watched
  bool writing_ = false;              ///< EPOLLOUT is watched (output waits or a connect is pending)
  std::string out_;                   ///< queued output; [sent_, size) not sent yet
  std::size_t sent_ = 0;              ///< bytes of out_ already sent
  int corked_ = 0;                    ///< cork() depth
  bool connecting_ = false;           ///< a non-blocking connect is pending
  bool closing_ = false;              ///< closeAfterFlush() was called
  bool blocked_ = false;              ///< the kernel refused bytes since the last drain
  bool connectFailed_ = false;        ///< closed while connecting
  int error_ = 0;                     ///< errno that closed the stream (0: EOF or a close)
  std::function<void()> readable_;    ///< see onReadable()
  std::function<void()> closed_;      ///< see onClosed()
  std::function<void()> drained_;     ///< see onDrained()
};

}  // namespace rl
