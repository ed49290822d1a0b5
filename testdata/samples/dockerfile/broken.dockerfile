FROM alpine:3.20
EXPOSE port
COPY --from=missing /a /b
CMD ["run"
